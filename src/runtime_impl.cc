// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/runtime_impl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "src/errors.h"
#include "src/js_sources.h"
#include "src/v8_compat.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-microtask-queue.h"
#include "v8-script.h"
#include "v8-template.h"
#include "v8-typed-array.h"

namespace asyncctx {

namespace {

// Holder objects carry the ContextState* for native bindings.
constexpr int kHolderStateField = 0;

ContextState* StateFromHolder(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Local<v8::Object> holder = info.Data().As<v8::Object>();
  auto* state = static_cast<ContextState*>(
      compat::GetInternalPointer(holder, kHolderStateField));
  if (state == nullptr) {
    ThrowError(info.GetIsolate(),
               "asyncctx: the Runtime of this context has been destroyed");
  }
  return state;
}

std::string ToStdString(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 != nullptr ? std::string(*utf8, utf8.length())
                          : std::string("<unprintable>");
}

// --- Native bindings (see the header comment of src/js/asyncctx.js). ---

void GetFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  info.GetReturnValue().Set(
      compat::GetContinuationData(isolate, isolate->GetCurrentContext()));
}

// The JavaScript layer turns the thenable repair on before it enters a new
// frame (enterNewFrame), so these two stay as small as V8 allows: they are
// on every run, snapshot and resource callback.
void SetFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  compat::SetContinuationData(isolate, isolate->GetCurrentContext(), info[0]);
}

void SwapFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  info.GetReturnValue().Set(compat::GetContinuationData(isolate, context));
  compat::SetContinuationData(isolate, context, info[0]);
}

void EnqueueMicrotask(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (!info[0]->IsFunction())
    return;
  info.GetIsolate()->EnqueueMicrotask(info[0].As<v8::Function>());
}

// enqueueOrGetFrame(fn, runner): queueMicrotask in one native call. Where
// V8 propagates the frame through EnqueueMicrotask itself, it queues the
// bare `fn` and returns undefined; otherwise it queues `runner`, which runs
// the callback in its frame, and returns the current frame (null at the
// root) for the JavaScript layer to keep.
void EnqueueOrGetFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (compat::kV8PropagatesThenables) {
    isolate->EnqueueMicrotask(info[0].As<v8::Function>());
    return;
  }
  v8::Local<v8::Value> frame =
      compat::GetContinuationData(isolate, isolate->GetCurrentContext());
  isolate->EnqueueMicrotask(info[1].As<v8::Function>());
  if (frame->IsUndefined()) {
    info.GetReturnValue().SetNull();
  } else {
    info.GetReturnValue().Set(frame);
  }
}

void UpdatePromiseHooks(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = StateFromHolder(info);
  if (state == nullptr)
    return;
  v8::Local<v8::Context> context = info.GetIsolate()->GetCurrentContext();
  auto fn = [&](int i) {
    return info[i]->IsFunction() ? info[i].As<v8::Function>()
                                 : v8::Local<v8::Function>();
  };
  context->SetPromiseHooks(fn(0), fn(1), fn(2), fn(3));
}

void FatalStackCorruption(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Local<v8::Context> context = info.GetIsolate()->GetCurrentContext();
  double current = info[0]->NumberValue(context).FromMaybe(-1);
  double popped = info[1]->NumberValue(context).FromMaybe(-1);
  ExecutionStack::FatalCorruption(current, popped);
}

void ReportHookErrorBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = StateFromHolder(info);
  if (state == nullptr)
    return;
  std::string name = ToStdString(info.GetIsolate(), info[0]);
  state->runtime->ReportHookError(name.c_str(), info[1]);
}

void ReportUncaughtBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = StateFromHolder(info);
  if (state == nullptr)
    return;
  v8::Isolate* isolate = info.GetIsolate();
  state->runtime->ReportUncaught(
      isolate->GetCurrentContext(), info[0],
      v8::Exception::CreateMessage(isolate, info[0]));
}

// hostResourceAt(index): the JavaScript object of the host resource whose
// CallbackScope pushed stack entry `index`, or undefined.
void HostResourceAt(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = StateFromHolder(info);
  if (state == nullptr || !info[0]->IsUint32())
    return;
  AsyncResource* resource =
      state->runtime->HostResourceAt(info[0].As<v8::Uint32>()->Value());
  if (resource != nullptr)
    info.GetReturnValue().Set(resource->resource());
}

void QueueDestroyBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = StateFromHolder(info);
  if (state == nullptr || !info[0]->IsNumber())
    return;
  state->runtime->QueueDestroy(state, info[0].As<v8::Number>()->Value());
}

struct BindingFunction {
  const char* name;
  v8::FunctionCallback callback;
  int length;
};

constexpr BindingFunction kBindingFunctions[] = {
    {"getFrame", GetFrame, 0},
    {"setFrame", SetFrame, 1},
    {"swapFrame", SwapFrame, 1},
    {"enqueueMicrotask", EnqueueMicrotask, 1},
    {"enqueueOrGetFrame", EnqueueOrGetFrame, 2},
    {"updatePromiseHooks", UpdatePromiseHooks, 4},
    {"fatalStackCorruption", FatalStackCorruption, 2},
    {"reportHookError", ReportHookErrorBinding, 2},
    {"reportUncaught", ReportUncaughtBinding, 1},
    {"queueDestroy", QueueDestroyBinding, 1},
    {"hostResourceAt", HostResourceAt, 1},
};

v8::Local<v8::String> Str(v8::Isolate* isolate, const char* s) {
  return v8::String::NewFromUtf8(isolate, s, v8::NewStringType::kInternalized)
      .ToLocalChecked();
}

bool GetFunction(v8::Local<v8::Context> context,
                 v8::Local<v8::Object> object,
                 const char* name,
                 v8::Global<v8::Function>* out) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Value> value;
  if (!object->Get(context, Str(isolate, name)).ToLocal(&value) ||
      !value->IsFunction()) {
    return false;
  }
  out->Reset(isolate, value.As<v8::Function>());
  out->SetWeak();
  return true;
}

void DefaultHookErrorHandler(v8::Isolate*, const HookError& error) {
  std::fprintf(
      stderr, "Error thrown in async hook '%s': %s\n", error.hook_name.c_str(),
      error.stack.empty() ? error.message.c_str() : error.stack.c_str());
  std::fflush(stderr);
  std::exit(1);
}

void DefaultUncaughtHandler(v8::Local<v8::Context> context,
                            v8::Local<v8::Value> exception,
                            v8::Local<v8::Message>) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  std::string text = ToStdString(isolate, exception);
  if (exception->IsObject()) {
    v8::Local<v8::Value> stack;
    if (exception.As<v8::Object>()
            ->Get(context, Str(isolate, "stack"))
            .ToLocal(&stack) &&
        stack->IsString()) {
      text = ToStdString(isolate, stack);
    }
  }
  std::fprintf(stderr, "Uncaught %s\n", text.c_str());
}

}  // namespace

struct RuntimeImpl::PendingRejection {
  v8::Global<v8::Context> context;
  v8::Global<v8::Promise> promise;
  v8::Global<v8::Value> reason;
  v8::Global<v8::Value> frame;
};

// --- Runtime ---

std::unique_ptr<Runtime> Runtime::Create(v8::Isolate* isolate,
                                         RuntimeOptions options) {
  if (isolate == nullptr) {
    std::fprintf(stderr, "asyncctx: Runtime::Create() needs an isolate\n");
    return nullptr;
  }
  if (isolate->GetData(kIsolateDataSlot) != nullptr) {
    std::fprintf(stderr,
                 "asyncctx: Runtime::Create(): this isolate already has a "
                 "runtime (or another user of isolate data slot %u)\n",
                 kIsolateDataSlot);
    return nullptr;
  }
  return std::make_unique<RuntimeImpl>(isolate, std::move(options));
}

Runtime* Runtime::From(v8::Isolate* isolate) {
  return static_cast<Runtime*>(isolate->GetData(kIsolateDataSlot));
}

Runtime::~Runtime() = default;

RuntimeImpl* RuntimeForOrDie(v8::Isolate* isolate, const char* api) {
  auto* runtime = static_cast<RuntimeImpl*>(isolate->GetData(kIsolateDataSlot));
  if (runtime == nullptr) {
    FatalUsage(api,
               "this isolate has no asyncctx::Runtime (create one with "
               "Runtime::Create() and keep it alive while it is used)");
  }
  return runtime;
}

RuntimeImpl::RuntimeImpl(v8::Isolate* isolate, RuntimeOptions options)
    : Runtime(isolate),
      options_(std::move(options)),
      alive_(std::make_shared<RuntimeImpl*>(this)) {
  if (compat::kV8PropagatesThenables)
    options_.thenable_repair = false;
  if (!options_.on_hook_error)
    options_.on_hook_error = DefaultHookErrorHandler;
  if (!options_.on_uncaught_exception) {
    options_.on_uncaught_exception = DefaultUncaughtHandler;
  }
  isolate->SetData(kIsolateDataSlot, this);

  // V8 owns the execution stack memory from here on: the backing store's
  // deleter unmaps it once neither this runtime nor any JavaScript view
  // refers to it.
  stack_.ReleaseMemoryOwnership();
  stack_store_ = v8::ArrayBuffer::NewBackingStore(
      stack_.memory(), ExecutionStack::kMemoryBytes, ExecutionStack::FreeMemory,
      nullptr);

  isolate->AddMessageListenerWithErrorLevel(
      OnMessage, v8::Isolate::kMessageError, v8::Local<v8::Value>());
  if (options_.on_unhandled_rejection) {
    isolate->SetPromiseRejectCallback(OnPromiseReject);
  }
  isolate->AddMicrotasksCompletedCallback(OnMicrotasksCompleted, this);
}

void RuntimeImpl::OnMicrotasksCompleted(v8::Isolate* isolate, void* data) {
  auto* runtime = static_cast<RuntimeImpl*>(data);
  if (isolate->IsExecutionTerminating())
    runtime->checkpoint_terminated_ = true;
  for (auto& state : runtime->states_) {
    state->hook_fields[kHookCheckpointGeneration]++;
  }
}

RuntimeImpl::~RuntimeImpl() {
  v8::Isolate* isolate = this->isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  isolate->RemoveMessageListeners(OnMessage);
  isolate->RemoveMicrotasksCompletedCallback(OnMicrotasksCompleted, this);
  if (options_.on_unhandled_rejection) {
    isolate->SetPromiseRejectCallback(nullptr);
  }
  pending_rejections_.clear();
  // Detach every context that is still alive: its bindings throw from now
  // on, its promise hooks are removed, and its embedder data no longer
  // points to freed state.
  for (auto& state : states_) {
    if (!state->holder.IsEmpty()) {
      compat::SetInternalPointer(state->holder.Get(isolate), kHolderStateField,
                                 nullptr);
    }
    if (!state->context.IsEmpty()) {
      v8::Local<v8::Context> context = state->context.Get(isolate);
      context->SetPromiseHooks({}, {}, {}, {});
      compat::SetEmbedderPointer(context, options_.context_embedder_index + 1,
                                 nullptr);
    }
  }
  states_.clear();
  isolate->SetData(kIsolateDataSlot, nullptr);
}

ContextState* RuntimeImpl::StateFor(v8::Local<v8::Context> context) const {
  if (context.IsEmpty())
    return nullptr;
  int index = options_.context_embedder_index + 1;
  if (context->GetNumberOfEmbedderDataFields() <=
      static_cast<uint32_t>(index)) {
    return nullptr;
  }
  auto* state =
      static_cast<ContextState*>(compat::GetEmbedderPointer(context, index));
  return state != nullptr && state->runtime == this ? state : nullptr;
}

ContextState* RuntimeImpl::StateForOrDie(v8::Local<v8::Context> context,
                                         const char* api) const {
  if (context.IsEmpty())
    FatalUsage(api, "the context is empty");
  ContextState* state = StateFor(context);
  if (state == nullptr) {
    FatalUsage(api,
               "asyncctx is not installed in this context (call "
               "Runtime::Install() first)");
  }
  return state;
}

bool RuntimeImpl::IsInstalled(v8::Local<v8::Context> context) const {
  return StateFor(context) != nullptr;
}

v8::Maybe<bool> RuntimeImpl::Install(v8::Local<v8::Context> context,
                                     const InstallOptions& install_options) {
  v8::Isolate* isolate = this->isolate();
  if (context.IsEmpty() || compat::IsolateOf(context) != isolate) {
    FatalUsage("Runtime::Install", "the context belongs to another isolate");
  }
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  if (IsInstalled(context)) {
    ThrowError(isolate,
               "asyncctx: Runtime::Install() was already called for this "
               "context");
    return v8::Nothing<bool>();
  }

  auto owned_state = std::make_unique<ContextState>();
  ContextState* state = owned_state.get();
  state->runtime = this;
  state->hook_store = v8::ArrayBuffer::NewBackingStore(
      isolate, kHookFieldCount * sizeof(double));
  state->hook_fields = static_cast<double*>(state->hook_store->Data());
  for (int i = 0; i < kHookFieldCount; i++)
    state->hook_fields[i] = 0;
  state->hook_fields[kHookThenableRepair] = options_.thenable_repair ? 1 : 0;

  v8::Local<v8::ObjectTemplate> holder_template =
      v8::ObjectTemplate::New(isolate);
  holder_template->SetInternalFieldCount(1);
  v8::Local<v8::Object> holder;
  if (!holder_template->NewInstance(context).ToLocal(&holder)) {
    return v8::Nothing<bool>();
  }
  compat::SetInternalPointer(holder, kHolderStateField, state);

  v8::Local<v8::Object> binding = v8::Object::New(isolate);
  for (const BindingFunction& f : kBindingFunctions) {
    v8::Local<v8::Function> fn;
    if (!v8::Function::New(context, f.callback, holder, f.length,
                           v8::ConstructorBehavior::kThrow)
             .ToLocal(&fn) ||
        binding->Set(context, Str(isolate, f.name), fn).IsNothing()) {
      return v8::Nothing<bool>();
    }
  }
  v8::Local<v8::ArrayBuffer> stack_buffer =
      v8::ArrayBuffer::New(isolate, stack_store_);
  v8::Local<v8::ArrayBuffer> hook_buffer =
      v8::ArrayBuffer::New(isolate, state->hook_store);
  if (binding
          ->Set(context, Str(isolate, "fields"),
                v8::Float64Array::New(stack_buffer, 0,
                                      ExecutionStack::kFieldCount))
          .IsNothing() ||
      binding
          ->Set(context, Str(isolate, "depth"),
                v8::Uint32Array::New(stack_buffer, ExecutionStack::kDepthOffset,
                                     1))
          .IsNothing() ||
      binding
          ->Set(
              context, Str(isolate, "stack"),
              v8::Float64Array::New(stack_buffer, ExecutionStack::kFieldsBytes,
                                    2 * ExecutionStack::kCapacity))
          .IsNothing() ||
      binding
          ->Set(context, Str(isolate, "hookFields"),
                v8::Float64Array::New(hook_buffer, 0, kHookFieldCount))
          .IsNothing()) {
    return v8::Nothing<bool>();
  }

  // The indices into `fields` and `hookFields`, defined once (in C++).
  v8::Local<v8::Object> constants = v8::Object::New(isolate);
  const std::pair<const char*, int> kConstants[] = {
      {"kExecutionAsyncId", ExecutionStack::kExecutionAsyncId},
      {"kTriggerAsyncId", ExecutionStack::kTriggerAsyncId},
      {"kAsyncIdCounter", ExecutionStack::kAsyncIdCounter},
      {"kDefaultTriggerAsyncId", ExecutionStack::kDefaultTriggerAsyncId},
      {"kStackCapacity", ExecutionStack::kStackCapacity},
      {"kInit", kHookInit},
      {"kBefore", kHookBefore},
      {"kAfter", kHookAfter},
      {"kDestroy", kHookDestroy},
      {"kPromiseResolve", kHookPromiseResolve},
      {"kTotals", kHookTotals},
      {"kTrackedResources", kHookTrackedResources},
      {"kThenableRepair", kHookThenableRepair},
      {"kRepairActive", kHookRepairActive},
      {"kCheckpointGeneration", kHookCheckpointGeneration},
  };
  for (const auto& [name, value] : kConstants) {
    if (constants
            ->Set(context, Str(isolate, name), v8::Integer::New(isolate, value))
            .IsNothing()) {
      return v8::Nothing<bool>();
    }
  }
  if (binding->Set(context, Str(isolate, "constants"), constants)
          .IsNothing()) {
    return v8::Nothing<bool>();
  }

  // Compile the JavaScript layer and call it with the binding.
  v8::Local<v8::String> source;
  if (!v8::String::NewFromUtf8(
           isolate, internal::kAsyncctxSource, v8::NewStringType::kNormal,
           static_cast<int>(internal::kAsyncctxSourceLength))
           .ToLocal(&source)) {
    return v8::Nothing<bool>();
  }
  v8::ScriptOrigin origin = compat::MakeScriptOrigin(
      isolate, Str(isolate, "asyncctx:internal/asyncctx.js"));
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> factory;
  v8::Local<v8::Value> argv[] = {binding};
  v8::Local<v8::Value> layer_value;
  if (!v8::Script::Compile(context, source, &origin).ToLocal(&script) ||
      !script->Run(context).ToLocal(&factory) || !factory->IsFunction() ||
      !factory.As<v8::Function>()
           ->Call(context, v8::Undefined(isolate), 1, argv)
           .ToLocal(&layer_value) ||
      !layer_value->IsObject()) {
    return v8::Nothing<bool>();
  }
  v8::Local<v8::Object> layer = layer_value.As<v8::Object>();
  v8::Local<v8::Value> exports_value;
  v8::Local<v8::Value> internals_value;
  if (!layer->Get(context, Str(isolate, "exports")).ToLocal(&exports_value) ||
      !layer->Get(context, Str(isolate, "internals"))
           .ToLocal(&internals_value) ||
      !exports_value->IsObject() || !internals_value->IsObject()) {
    return v8::Nothing<bool>();
  }
  v8::Local<v8::Object> exports = exports_value.As<v8::Object>();
  v8::Local<v8::Object> internals = internals_value.As<v8::Object>();

  v8::Local<v8::Value> resources;
  if (!internals->Get(context, Str(isolate, "resources")).ToLocal(&resources) ||
      !resources->IsArray() ||
      !GetFunction(context, internals, "emitInit", &state->emit_init) ||
      !GetFunction(context, internals, "emitBefore", &state->emit_before) ||
      !GetFunction(context, internals, "emitAfter", &state->emit_after) ||
      !GetFunction(context, internals, "emitDestroyBatch",
                   &state->emit_destroy_batch) ||
      !GetFunction(context, internals, "refreshPromiseHooks",
                   &state->refresh_promise_hooks) ||
      !GetFunction(context, internals, "frameWith", &state->frame_with) ||
      !GetFunction(context, internals, "frameLookup", &state->frame_lookup) ||
      !GetFunction(context, internals, "invalidArgType",
                   &state->invalid_arg_type) ||
      !GetFunction(context, internals, "makeNodeError",
                   &state->make_node_error) ||
      !GetFunction(context, internals, "resetAfterTermination",
                   &state->reset_after_termination)) {
    ThrowError(isolate, "asyncctx: internal error: bad JavaScript layer");
    return v8::Nothing<bool>();
  }
  state->resources.Reset(isolate, resources.As<v8::Array>());
  state->resources.SetWeak();
  v8::Local<v8::Value> root_frame;
  v8::Local<v8::Value> frame_missing;
  if (!internals->Get(context, Str(isolate, "rootFrame"))
           .ToLocal(&root_frame) ||
      !internals->Get(context, Str(isolate, "frameMissing"))
           .ToLocal(&frame_missing)) {
    return v8::Nothing<bool>();
  }
  state->root_frame.Reset(isolate, root_frame);
  state->root_frame.SetWeak();
  state->frame_missing.Reset(isolate, frame_missing);
  state->frame_missing.SetWeak();

  // Install the requested globals.
  v8::Local<v8::Object> global = context->Global();
  const std::pair<const std::string*, const char*> globals[] = {
      {&install_options.async_local_storage, "AsyncLocalStorage"},
      {&install_options.async_resource, "AsyncResource"},
      {&install_options.queue_microtask, "queueMicrotask"},
      {&install_options.async_context, "AsyncContext"},
      {&install_options.async_hooks, "asyncHooks"},
  };
  for (const auto& [name, export_name] : globals) {
    if (name->empty())
      continue;
    v8::Local<v8::Value> value;
    v8::Local<v8::String> key;
    if (!exports->Get(context, Str(isolate, export_name)).ToLocal(&value) ||
        !v8::String::NewFromUtf8(isolate, name->c_str(),
                                 v8::NewStringType::kInternalized,
                                 static_cast<int>(name->size()))
             .ToLocal(&key) ||
        global
            ->DefineOwnProperty(context, key, value,
                                v8::PropertyAttribute::DontEnum)
            .IsNothing()) {
      return v8::Nothing<bool>();
    }
  }

  // The context keeps the layer alive; C++ refers to it weakly.
  context->SetEmbedderData(options_.context_embedder_index, internals);
  compat::SetEmbedderPointer(context, options_.context_embedder_index + 1,
                             state);
  state->holder.Reset(isolate, holder);
  state->holder.SetWeak();
  state->context.Reset(isolate, context);
  state->context.SetWeak(state, OnContextCollected,
                         v8::WeakCallbackType::kParameter);
  states_.push_back(std::move(owned_state));
  // The root as a frame object, so that V8 captures it for the jobs queued
  // from here on (see src/js/frames.js).
  compat::SetContinuationData(isolate, context, root_frame);
  return v8::Just(true);
}

void RuntimeImpl::OnContextCollected(
    const v8::WeakCallbackInfo<ContextState>& info) {
  ContextState* state = info.GetParameter();
  state->context.Reset();
  state->runtime->ForgetState(state);
}

void RuntimeImpl::ForgetState(ContextState* state) {
  for (auto it = states_.begin(); it != states_.end(); ++it) {
    if (it->get() == state) {
      states_.erase(it);
      return;
    }
  }
}

void RuntimeImpl::EnterFrame(ContextState* state,
                             v8::Local<v8::Context> context,
                             v8::Local<v8::Value> frame) {
  compat::SetContinuationData(isolate(), context, frame);
  if (!frame->IsUndefined() && state->hook_fields[kHookRepairActive] == 0 &&
      state->hook_fields[kHookThenableRepair] != 0 &&
      frame != state->root_frame.Get(isolate())) {
    ActivateThenableRepair(state, context);
  }
}

void RuntimeImpl::ActivateThenableRepair(ContextState* state,
                                         v8::Local<v8::Context> context) {
  state->hook_fields[kHookRepairActive] = 1;
  v8::Local<v8::Function> refresh = state->refresh_promise_hooks.Get(isolate());
  if (refresh.IsEmpty())
    return;
  v8::TryCatch try_catch(isolate());
  (void)refresh->Call(context, v8::Undefined(isolate()), 0, nullptr).IsEmpty();
}

void RuntimeImpl::SetThenableRepair(bool enabled) {
  if (compat::kV8PropagatesThenables)
    enabled = false;
  options_.thenable_repair = enabled;
  v8::HandleScope handle_scope(isolate());
  for (auto& state : states_) {
    state->hook_fields[kHookThenableRepair] = enabled ? 1 : 0;
    if (!enabled && state->hook_fields[kHookRepairActive] != 0) {
      state->hook_fields[kHookRepairActive] = 0;
      if (state->context.IsEmpty())
        continue;
      v8::Local<v8::Context> context = state->context.Get(isolate());
      v8::Local<v8::Function> refresh =
          state->refresh_promise_hooks.Get(isolate());
      if (refresh.IsEmpty())
        continue;
      v8::Context::Scope context_scope(context);
      v8::TryCatch try_catch(isolate());
      (void)refresh->Call(context, v8::Undefined(isolate()), 0, nullptr)
          .IsEmpty();
    }
  }
}

void RuntimeImpl::SetResource(ContextState* state,
                              v8::Local<v8::Context> context,
                              size_t index,
                              v8::Local<v8::Value> resource) {
  v8::Local<v8::Array> resources = state->resources.Get(isolate());
  if (resources.IsEmpty())
    return;
  (void)resources->Set(context, static_cast<uint32_t>(index), resource)
      .IsNothing();
}

size_t RuntimeImpl::TrackedResourceCount() const {
  size_t count = 0;
  for (const auto& state : states_) {
    count += static_cast<size_t>(state->hook_fields[kHookTrackedResources]);
  }
  return count;
}

void RuntimeImpl::QueueDestroy(ContextState* state, double async_id) {
  state->pending_destroys.push_back(async_id);
  PostDestroyTask();
}

void RuntimeImpl::PostDestroyTask() {
  if (destroy_task_posted_)
    return;
  std::weak_ptr<RuntimeImpl*> weak = alive_;
  auto task = [weak]() {
    if (auto alive = weak.lock()) {
      (*alive)->destroy_task_posted_ = false;
      (*alive)->EmitPendingDestroys();
    }
  };
  if (options_.post_task) {
    destroy_task_posted_ = true;
    options_.post_task(std::move(task));
  } else if (options_.platform != nullptr) {
    class LambdaTask : public v8::Task {
     public:
      explicit LambdaTask(std::function<void()> fn) : fn_(std::move(fn)) {}
      void Run() override { fn_(); }

     private:
      std::function<void()> fn_;
    };
    destroy_task_posted_ = true;
    options_.platform->GetForegroundTaskRunner(isolate())->PostTask(
        std::make_unique<LambdaTask>(std::move(task)));
  }
  // Without a platform or poster, the host calls EmitPendingDestroys().
}

void RuntimeImpl::EmitPendingDestroys() {
  v8::Isolate* isolate = this->isolate();
  v8::HandleScope handle_scope(isolate);
  // Hooks may queue more destroys (and install contexts): take the batches
  // first.
  for (size_t i = 0; i < states_.size(); i++) {
    ContextState* state = states_[i].get();
    if (state->pending_destroys.empty())
      continue;
    std::vector<double> ids;
    ids.swap(state->pending_destroys);
    if (state->context.IsEmpty())
      continue;
    v8::Local<v8::Context> context = state->context.Get(isolate);
    v8::Context::Scope context_scope(context);
    v8::Local<v8::Function> emit = state->emit_destroy_batch.Get(isolate);
    if (emit.IsEmpty())
      continue;
    // Built from its elements (no index stores: a setter on
    // Array.prototype must not see the ids, nor throw here).
    std::vector<v8::Local<v8::Value>> elements(ids.size());
    for (size_t j = 0; j < ids.size(); j++)
      elements[j] = v8::Number::New(isolate, ids[j]);
    v8::Local<v8::Array> array =
        v8::Array::New(isolate, elements.data(), elements.size());
    v8::Local<v8::Value> argv[] = {array};
    v8::TryCatch try_catch(isolate);
    (void)emit->Call(context, v8::Undefined(isolate), 1, argv).IsEmpty();
  }
}

void RuntimeImpl::ReportHookError(const char* hook,
                                  v8::Local<v8::Value> error) {
  v8::Isolate* isolate = this->isolate();
  HookError hook_error;
  hook_error.hook_name = hook;
  hook_error.message = ToStdString(isolate, error);
  if (error->IsObject()) {
    v8::Local<v8::Value> stack;
    v8::TryCatch try_catch(isolate);
    if (error.As<v8::Object>()
            ->Get(isolate->GetCurrentContext(), Str(isolate, "stack"))
            .ToLocal(&stack) &&
        stack->IsString()) {
      hook_error.stack = ToStdString(isolate, stack);
    }
  }
  options_.on_hook_error(isolate, hook_error);
}

void RuntimeImpl::ReportUncaught(v8::Local<v8::Context> context,
                                 v8::Local<v8::Value> error,
                                 v8::Local<v8::Message> message) {
  options_.on_uncaught_exception(context, error, message);
}

void RuntimeImpl::OnMessage(v8::Local<v8::Message> message,
                            v8::Local<v8::Value> error) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  auto* runtime = static_cast<RuntimeImpl*>(isolate->GetData(kIsolateDataSlot));
  if (runtime == nullptr)
    return;
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (context.IsEmpty())
    return;
  runtime->ReportUncaught(context, error, message);
}

void RuntimeImpl::OnPromiseReject(v8::PromiseRejectMessage message) {
  v8::Local<v8::Promise> promise = message.GetPromise();
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  auto* runtime = static_cast<RuntimeImpl*>(isolate->GetData(kIsolateDataSlot));
  if (runtime == nullptr)
    return;
  switch (message.GetEvent()) {
    case v8::kPromiseRejectWithNoHandler: {
      v8::Local<v8::Context> context = isolate->GetCurrentContext();
      auto pending = std::make_unique<PendingRejection>();
      pending->context.Reset(isolate, context);
      pending->promise.Reset(isolate, promise);
      pending->reason.Reset(isolate, message.GetValue());
      pending->frame.Reset(isolate,
                           compat::GetContinuationData(isolate, context));
      runtime->pending_rejections_.push_back(std::move(pending));
      break;
    }
    case v8::kPromiseHandlerAddedAfterReject: {
      auto& list = runtime->pending_rejections_;
      for (auto it = list.begin(); it != list.end(); ++it) {
        if ((*it)->promise.Get(isolate) == promise) {
          list.erase(it);
          break;
        }
      }
      break;
    }
    default:
      break;
  }
}

void RuntimeImpl::ProcessUnhandledRejections() {
  if (pending_rejections_.empty() || !options_.on_unhandled_rejection)
    return;
  v8::Isolate* isolate = this->isolate();
  std::vector<std::unique_ptr<PendingRejection>> list;
  list.swap(pending_rejections_);
  for (auto& pending : list) {
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> context = pending->context.Get(isolate);
    v8::Context::Scope context_scope(context);
    v8::Local<v8::Value> previous =
        compat::GetContinuationData(isolate, context);
    compat::SetContinuationData(isolate, context, pending->frame.Get(isolate));
    options_.on_unhandled_rejection(context, pending->promise.Get(isolate),
                                    pending->reason.Get(isolate));
    compat::SetContinuationData(isolate, context, previous);
  }
}

void RuntimeImpl::RecoverFromTermination() {
  if (stack_.depth() == 0 && !checkpoint_terminated_)
    return;
  // Outside of every CallbackScope no JavaScript scope can be open, so what
  // is left was abandoned by TerminateExecution (finally blocks and `after`
  // hooks do not run then).
  checkpoint_terminated_ = false;
  stack_.UnwindTo(0);
  std::fill(host_resources_.begin(), host_resources_.end(), nullptr);
  v8::Isolate* isolate = this->isolate();
  v8::HandleScope handle_scope(isolate);
  for (size_t i = 0; i < states_.size(); i++) {
    ContextState* state = states_[i].get();
    if (state->context.IsEmpty())
      continue;
    v8::Local<v8::Context> context = state->context.Get(isolate);
    v8::Local<v8::Function> reset = state->reset_after_termination.Get(isolate);
    if (reset.IsEmpty())
      continue;
    v8::Context::Scope context_scope(context);
    v8::TryCatch try_catch(isolate);
    (void)reset->Call(context, v8::Undefined(isolate), 0, nullptr).IsEmpty();
  }
}

void RuntimeImpl::RunMicrotasks(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = this->isolate();
  if (isolate->IsExecutionTerminating())
    return;
  if (callback_scope_depth == 0)
    RecoverFromTermination();
  // Jobs captured at the root frame run in whatever frame is current (V8
  // 10.2 only enters non-root captured frames), so the checkpoint starts at
  // the root: an enterWith in the script that ran before must not leak.
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Value> root = RootFrame(context);
  if (!context.IsEmpty())
    compat::SetContinuationData(isolate, context, root);
  size_t depth_before = stack_.depth();
  isolate->PerformMicrotaskCheckpoint();
  // Every job pops what it pushed, so a deeper stack means jobs were
  // abandoned by TerminateExecution (V8 forgets the termination once no
  // JavaScript is left on the stack, so the depth is the reliable sign).
  if (isolate->IsExecutionTerminating() || stack_.depth() > depth_before) {
    // Jobs were abandoned mid-way: whatever they pushed is unwound now (JS
    // bookkeeping is reset at the next RunMicrotasks, when JavaScript may
    // run again).
    stack_.UnwindTo(depth_before);
    checkpoint_terminated_ = true;
    if (!context.IsEmpty())
      compat::SetContinuationData(isolate, context, root);
    return;
  }
  ProcessUnhandledRejections();
  // V8 10.2 leaves whatever the last job set; every macrotask starts at the
  // root frame.
  if (!context.IsEmpty())
    compat::SetContinuationData(isolate, context, root);
}

v8::Local<v8::Value> RuntimeImpl::RootFrame(v8::Local<v8::Context> context) {
  ContextState* state = StateFor(context);
  if (state == nullptr || state->root_frame.IsEmpty())
    return v8::Undefined(isolate());
  return state->root_frame.Get(isolate());
}

}  // namespace asyncctx
