// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/runtime_impl.h"

#include "src/external_references.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/errors.h"
#include "src/js_bindings.h"
#include "src/js_sources.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "src/v8_string.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-typed-array.h"

namespace asyncctx {

namespace {

// Node.js exits with code 1 here; a library must not end the host's
// process, so the default stops the isolate's JavaScript instead.
void DefaultHookErrorHandler(v8::Isolate* isolate, const HookError& error) {
  std::fprintf(
      stderr, "Error thrown in async hook '%s': %s\n", error.hook_name.c_str(),
      error.stack.empty() ? error.message.c_str() : error.stack.c_str());
  std::fflush(stderr);
  isolate->TerminateExecution();
}

uint64_t NextGeneration() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
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

// --- Runtime ---

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::New(v8::Isolate* isolate,
                                                      RuntimeOptions options) {
  if (isolate == nullptr) {
    return absl::InvalidArgumentError(
        "asyncctx: Runtime::New(): the isolate is null");
  }
  uint32_t slot = options.isolate_data_slot;
  if (slot >= v8::Isolate::GetNumberOfDataSlots()) {
    return absl::InvalidArgumentError(
        absl::StrCat("asyncctx: Runtime::New(): isolate_data_slot ", slot,
                     " is out of range (the isolate has ",
                     v8::Isolate::GetNumberOfDataSlots(), " data slots)"));
  }
  if (RuntimeRegistry::Find(isolate) != nullptr) {
    return absl::AlreadyExistsError(
        "asyncctx: Runtime::New(): this isolate already has a runtime");
  }
  if (isolate->GetData(slot) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("asyncctx: Runtime::New(): isolate data slot ", slot,
                     " is already in use (choose another "
                     "RuntimeOptions::isolate_data_slot)"));
  }
  return std::unique_ptr<Runtime>(
      std::make_unique<RuntimeImpl>(isolate, std::move(options)));
}

std::unique_ptr<Runtime> Runtime::Create(v8::Isolate* isolate,
                                         RuntimeOptions options) {
  absl::StatusOr<std::unique_ptr<Runtime>> runtime =
      New(isolate, std::move(options));
  if (!runtime.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(runtime.status().message()).c_str());
    return nullptr;
  }
  return std::move(runtime).value();
}

Runtime* Runtime::From(v8::Isolate* isolate) {
  return RuntimeRegistry::Find(isolate);
}

Runtime::~Runtime() = default;

RuntimeImpl* RuntimeForOrDie(v8::Isolate* isolate, const char* api) {
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
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
      generation_(NextGeneration()),
      rejections_(isolate),
      alive_(std::make_shared<RuntimeImpl*>(this)) {
  if (compat::kV8PropagatesThenables)
    options_.thenable_repair = false;
  if (!options_.on_hook_error)
    options_.on_hook_error = DefaultHookErrorHandler;
  if (!options_.on_uncaught_exception) {
    options_.on_uncaught_exception = DefaultUncaughtHandler;
  }
  if (!options_.on_fatal_error)
    options_.on_fatal_error = DefaultFatalErrorHandler;
  isolate->SetData(options_.isolate_data_slot, this);
  RuntimeRegistry::Add(isolate, this);

  // V8 owns the execution stack memory from here on: the backing store's
  // deleter unmaps it once neither this runtime nor any JavaScript view
  // refers to it.
  stack_.ReleaseMemoryOwnership();
  stack_store_ = v8::ArrayBuffer::NewBackingStore(
      stack_.memory(), ExecutionStack::kMemoryBytes, ExecutionStack::FreeMemory,
      nullptr);

  // The listener is in V8's heap (a snapshot of this isolate serializes it).
  CheckExternalReference(reinterpret_cast<intptr_t>(&OnMessage));
  isolate->AddMessageListenerWithErrorLevel(
      OnMessage, v8::Isolate::kMessageError, v8::Local<v8::Value>());
  if (options_.on_unhandled_rejection) {
    isolate->SetPromiseRejectCallback(OnPromiseReject);
  }
}

void* ContextTag() {
  alignas(8) static const char tag = 0;
  return const_cast<char*>(&tag);
}

void RuntimeImpl::RegisterMicrotaskQueue(v8::MicrotaskQueue* queue) {
  if (queue == nullptr ||
      std::find(microtask_queues_.begin(), microtask_queues_.end(), queue) !=
          microtask_queues_.end()) {
    return;
  }
  queue->AddMicrotasksCompletedCallback(OnMicrotasksCompleted, this);
  microtask_queues_.push_back(queue);
}

RuntimeImpl::~RuntimeImpl() {
  v8::Isolate* isolate = this->isolate();
  if (busy_ > 0 || callback_scope_depth > 0) {
    FatalUsage(
        "Runtime::~Runtime",
        "the Runtime was destroyed while it was running JavaScript (from "
        "a microtask, a hook or a callback inside RunMicrotasks, "
        "EmitPendingDestroys or a CallbackScope); destroy it from the "
        "host's event loop, with no CallbackScope open",
        isolate);
  }
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  isolate->RemoveMessageListeners(OnMessage);
  for (v8::MicrotaskQueue* queue : microtask_queues_)
    queue->RemoveMicrotasksCompletedCallback(OnMicrotasksCompleted, this);
  if (options_.on_unhandled_rejection) {
    isolate->SetPromiseRejectCallback(nullptr);
  }
  rejections_.Clear();
  // Detach every context that is still alive: its bindings throw from now
  // on, its promise hooks are removed, and its embedder data no longer
  // points to freed state.
  for (auto& [state, owned] : states_) {
    if (!state->holder.IsEmpty())
      DetachBindingHolder(state->holder.Get(isolate));
    // The layer's views of the hook fields read undefined from now on (and
    // a snapshot of the context copies no off-heap memory).
    if (!state->hook_buffer.IsEmpty())
      compat::DetachArrayBuffer(state->hook_buffer.Get(isolate));
    if (!state->context.IsEmpty()) {
      v8::Local<v8::Context> context = state->context.Get(isolate);
      context->SetPromiseHooks({}, {}, {}, {});
      compat::SetEmbedderPointer(context, options_.context_embedder_index + 1,
                                 nullptr);
      compat::SetEmbedderPointer(context, options_.context_embedder_index + 2,
                                 nullptr);
    }
  }
  states_.clear();
  // The contexts keep the views of the execution-stack block alive; detach
  // them, so that nothing in V8's heap refers to the block any more. The
  // layer then reads undefined there and throws the "destroyed" error. (V8
  // 10.2 also crashes snapshotting a context with these off-heap views; see
  // include/asyncctx/snapshot.h.)
  if (!stack_views_.IsEmpty()) {
    v8::Local<v8::Array> views = stack_views_.Get(isolate);
    v8::Local<v8::Context> views_context;
    v8::Local<v8::Value> view;
    if (compat::CreationContextOf(isolate, views).ToLocal(&views_context) &&
        views->Get(views_context, 0).ToLocal(&view) &&
        view->IsArrayBufferView()) {
      compat::DetachArrayBuffer(view.As<v8::ArrayBufferView>()->Buffer());
    }
    stack_views_.Reset();
  }
  RuntimeRegistry::Remove(isolate, this);
  isolate->SetData(options_.isolate_data_slot, nullptr);
}

ContextState* RuntimeImpl::StateAt(v8::Local<v8::Context> context,
                                   int embedder_index) {
  if (context.IsEmpty())
    return nullptr;
  int index = embedder_index + 1;
  // A context that was never installed has fewer fields, or no tag.
  if (context->GetNumberOfEmbedderDataFields() <=
          static_cast<uint32_t>(index + 1) ||
      compat::GetEmbedderPointer(context, index + 1) != ContextTag()) {
    return nullptr;
  }
  return static_cast<ContextState*>(compat::GetEmbedderPointer(context, index));
}

ContextState* RuntimeImpl::StateFor(v8::Local<v8::Context> context) const {
  ContextState* state = StateAt(context, options_.context_embedder_index);
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

void RuntimeImpl::OnContextCollected(
    const v8::WeakCallbackInfo<ContextState>& info) {
  ContextState* state = info.GetParameter();
  state->context.Reset();
  state->runtime->ForgetState(state);
}

void RuntimeImpl::ForgetState(ContextState* state) {
  states_.erase(state);
}

std::vector<ContextState*> RuntimeImpl::SnapshotStates() const {
  std::vector<ContextState*> states;
  states.reserve(states_.size());
  for (const auto& [state, owned] : states_)
    states.push_back(state);
  std::sort(states.begin(), states.end(), [](ContextState* a, ContextState* b) {
    return a->serial < b->serial;
  });
  return states;
}

void RuntimeImpl::EnterFrame(ContextState* state,
                             v8::Local<v8::Context> context,
                             v8::Local<v8::Value> frame) {
  compat::SetContinuationData(isolate(), context, frame);
  if (!frame->IsUndefined() &&
      state->context_fields[kContextRepairActive] == 0 &&
      state->context_fields[kContextThenableRepair] != 0 &&
      frame != state->root_frame.Get(isolate())) {
    ActivateThenableRepair(state, context);
  }
}

void RuntimeImpl::ActivateThenableRepair(ContextState* state,
                                         v8::Local<v8::Context> context) {
  state->context_fields[kContextRepairActive] = 1;
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
  BusyScope busy(this);
  v8::HandleScope handle_scope(isolate());
  // The refresh calls JavaScript, which may let the GC collect a context.
  for (ContextState* state : SnapshotStates()) {
    if (!IsLive(state))
      continue;
    state->context_fields[kContextThenableRepair] = enabled ? 1 : 0;
    if (!enabled && state->context_fields[kContextRepairActive] != 0) {
      state->context_fields[kContextRepairActive] = 0;
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
  // Only within its length, where every element exists (the JavaScript layer
  // grows it before it pushes deeper): a store past the end would look for
  // a setter on Array.prototype.
  if (resources.IsEmpty() || index >= resources->Length())
    return;
  (void)resources->Set(context, static_cast<uint32_t>(index), resource)
      .IsNothing();
}

void RuntimeImpl::OrphanHostResource(AsyncResource* resource) {
  v8::HandleScope handle_scope(isolate());
  v8::Local<v8::Context> context = resource->context();
  ContextState* state = StateFor(context);
  size_t depth = std::min(stack_.depth(), host_resources_.size());
  for (size_t i = 0; i < depth; i++) {
    if (host_resources_[i] != resource)
      continue;
    host_resources_[i] = nullptr;
    if (state != nullptr)
      SetResource(state, context, i, resource->resource());
  }
}

size_t RuntimeImpl::TrackedResourceCount() const {
  size_t count = 0;
  for (const auto& [state, owned] : states_) {
    count +=
        static_cast<size_t>(state->context_fields[kContextTrackedResources]);
  }
  return count;
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
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  if (runtime == nullptr)
    return;
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (context.IsEmpty())
    return;
  if (IsStackOverflowInLayer(isolate, message))
    return;
  // The callback of the innermost CallbackScope threw and nothing caught it.
  if (runtime->innermost_scope != nullptr)
    runtime->innermost_scope->failed_ = true;
  runtime->ReportUncaught(context, error, message);
}

// V8 calls the layer's promise hooks itself and reports what they throw as
// an uncaught exception. A stack overflow at a hook's entry (a promise
// created at the very end of the stack) is no error of the program's: the
// hook's bookkeeping for that promise is skipped, and the program's own
// code, which is that deep, gets its RangeError at its next call, where it
// can catch it (as in Node.js 24). V8 places such an overflow, thrown
// before the hook's first instruction, at line 1 of the layer's script,
// which is a comment: any other exception from the layer (a real location)
// is reported as usual.
bool RuntimeImpl::IsStackOverflowInLayer(v8::Isolate* isolate,
                                         v8::Local<v8::Message> message) {
  v8::Local<v8::Value> script = message->GetScriptResourceName();
  if (!script->IsString() ||
      ToStdString(isolate, script) != internal::kAsyncctxScriptName ||
      message->GetLineNumber(isolate->GetCurrentContext()).FromMaybe(0) != 1) {
    return false;
  }
  return ToStdString(isolate, message->Get())
             .find("Maximum call stack size exceeded") != std::string::npos;
}

void RuntimeImpl::OnPromiseReject(v8::PromiseRejectMessage message) {
  v8::Local<v8::Promise> promise = message.GetPromise();
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  if (runtime == nullptr)
    return;
  switch (message.GetEvent()) {
    case v8::kPromiseRejectWithNoHandler:
      runtime->rejections_.OnRejectWithNoHandler(promise, message.GetValue());
      break;
    case v8::kPromiseHandlerAddedAfterReject:
      runtime->rejections_.OnHandlerAdded(promise);
      break;
    default:
      break;
  }
}

}  // namespace asyncctx
