// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/js_bindings.h"

#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "asyncctx/errors.h"
#include "src/errors.h"
#include "src/execution_stack.h"
#include "src/external_references.h"
#include "src/layer_contract.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "src/v8_string.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-template.h"
#include "v8-typed-array.h"

namespace asyncctx {
namespace internal {

namespace {

// Holder objects carry the ContextState* for native bindings.
constexpr int kHolderStateField = 0;

}  // namespace

ContextState* BindingState(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Local<v8::Object> holder = info.Data().As<v8::Object>();
  auto* state = static_cast<ContextState*>(
      compat::GetInternalPointer(holder, kHolderStateField));
  if (state == nullptr) {
    ThrowError(info.GetIsolate(), internal::kRuntimeDestroyedMessage);
  }
  return state;
}

namespace {

// --- Native bindings (ASYNCCTX_BINDING_FUNCTIONS in src/layer_contract.h;
// src/js/frames.js describes the frame slot). ---

void GetFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  info.GetReturnValue().Set(compat::GetCurrentContinuationData(isolate));
}

// The JavaScript layer turns the thenable repair on before it enters a new
// frame (activateRepairOnce in src/js/promise_hooks.js), so these two stay
// as small as V8 allows: they are on every run, snapshot and resource
// callback.
void SetFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  compat::SetCurrentContinuationData(info.GetIsolate(), info[0]);
}

void SwapFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  info.GetReturnValue().Set(compat::GetCurrentContinuationData(isolate));
  compat::SetCurrentContinuationData(isolate, info[0]);
}

void EnqueueMicrotask(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (!info[0]->IsFunction())
    return;
  info.GetIsolate()->EnqueueMicrotask(info[0].As<v8::Function>());
}

// enqueueOrGetFrame(fn, runner, bareRoot): queueMicrotask in one native
// call. It queues the bare `fn` and returns undefined where V8 propagates
// the frame through EnqueueMicrotask itself, and at the root frame when
// `bareRoot` is the layer's root object (not null); otherwise it queues
// `runner`, which runs the callback in its frame, and returns the current
// frame (null at the root) for the JavaScript layer to keep.
void EnqueueOrGetFrame(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (compat::kV8PropagatesThenables) {
    isolate->EnqueueMicrotask(info[0].As<v8::Function>());
    return;
  }
  v8::Local<v8::Value> frame = compat::GetCurrentContinuationData(isolate);
  if (!info[2]->IsNull() && (frame->IsUndefined() || frame == info[2])) {
    isolate->EnqueueMicrotask(info[0].As<v8::Function>());
    return;
  }
  isolate->EnqueueMicrotask(info[1].As<v8::Function>());
  if (frame->IsUndefined()) {
    info.GetReturnValue().SetNull();
  } else {
    info.GetReturnValue().Set(frame);
  }
}

void UpdatePromiseHooks(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = BindingState(info);
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
  ContextState* state = BindingState(info);
  if (state == nullptr)
    return;
  std::string name = ToStdString(info.GetIsolate(), info[0]);
  state->runtime->ReportHookError(name.c_str(), info[1]);
}

void ReportUncaughtBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = BindingState(info);
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
  ContextState* state = BindingState(info);
  if (state == nullptr || !info[0]->IsUint32())
    return;
  AsyncResource* resource =
      state->runtime->HostResourceAt(info[0].As<v8::Uint32>()->Value());
  if (resource != nullptr)
    info.GetReturnValue().Set(resource->resource());
}

void QueueDestroyBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = BindingState(info);
  if (state == nullptr || !info[0]->IsNumber())
    return;
  state->runtime->QueueDestroy(state, info[0].As<v8::Number>()->Value(),
                               /*from_javascript=*/true);
}

// newConstructor(name, length, construct): a native function named `name`
// (so its toString is V8's `function name() { [native code] }`, as for a
// builtin) that forwards to `construct` (see ConstructThroughLayer).
void NewConstructorBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info[0]->IsString() || !info[1]->IsInt32() || !info[2]->IsFunction())
    return;
  v8::Local<v8::Function> constructor;
  if (!NewNativeConstructor(context, ConstructThroughLayer, info[2],
                            info[1].As<v8::Int32>()->Value())
           .ToLocal(&constructor)) {
    return;
  }
  constructor->SetName(info[0].As<v8::String>());
  info.GetReturnValue().Set(constructor);
}

// trackDestroy(object, asyncId): queue asyncId's destroy when `object` is
// collected (src/destroy_tracker.h).
void TrackDestroy(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = BindingState(info);
  if (state == nullptr || !info[0]->IsObject() || !info[1]->IsNumber())
    return;
  state->runtime->TrackerFor(state)->Track(info.GetIsolate(),
                                           info[0].As<v8::Object>(),
                                           info[1].As<v8::Number>()->Value());
}

// markDestroyedByHand(asyncId): the tracked object emitted its destroy.
void MarkDestroyedByHand(const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = BindingState(info);
  if (state == nullptr || !info[0]->IsNumber())
    return;
  state->runtime->TrackerFor(state)->MarkDestroyedByHand(
      info[0].As<v8::Number>()->Value());
}

}  // namespace

// A native constructor whose construction is JavaScript: called (with or
// without `new`) as construct(newTarget, ...arguments), newTarget undefined
// without `new`. The data is `construct`.
void ConstructThroughLayer(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info.Data()->IsFunction())
    return;
  int argc = info.Length();
  std::vector<v8::Local<v8::Value>> argv(static_cast<size_t>(argc) + 1);
  argv[0] = info.IsConstructCall() ? info.NewTarget()
                                   : v8::Undefined(isolate).As<v8::Value>();
  for (int i = 0; i < argc; i++)
    argv[static_cast<size_t>(i) + 1] = info[i];
  v8::Local<v8::Value> result;
  if (info.Data()
          .As<v8::Function>()
          ->Call(context, v8::Undefined(isolate), argc + 1, argv.data())
          .ToLocal(&result)) {
    info.GetReturnValue().Set(result);
  }
}

void MakeLazyGlobal(v8::Local<v8::Name> name,
                    const v8::PropertyCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Value> value;
  if (info.Data()
          .As<v8::Function>()
          ->Call(isolate->GetCurrentContext(), v8::Undefined(isolate), 0,
                 nullptr)
          .ToLocal(&value)) {
    info.GetReturnValue().Set(value);
  }
}

// defineLazyValue(object, key, attributes, make): makes object[key] a lazy
// data property (v8::Object::SetLazyDataProperty) with `attributes` (a
// v8::PropertyAttribute mask) whose value is make() at its first read, as
// the installed globals are (src/install.cc). Returns whether V8 defined it
// (false for a property it cannot replace: a non-configurable one).
void DefineLazyValueBinding(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info[0]->IsObject() || !info[1]->IsString() || !info[2]->IsInt32() ||
      !info[3]->IsFunction()) {
    return;
  }
  int attributes = info[2].As<v8::Int32>()->Value();
  if ((attributes & ~(v8::ReadOnly | v8::DontEnum | v8::DontDelete)) != 0)
    return;
  CheckExternalReference(reinterpret_cast<intptr_t>(&MakeLazyGlobal));
  bool defined;
  if (!info[0]
           .As<v8::Object>()
           ->SetLazyDataProperty(context, info[1].As<v8::String>(),
                                 MakeLazyGlobal, info[3],
                                 static_cast<v8::PropertyAttribute>(attributes))
           .To(&defined)) {
    return;
  }
  info.GetReturnValue().Set(defined);
}

const BindingFunction kBindingFunctions[] = {
#define ASYNCCTX_BINDING_FUNCTION(name, callback, length) \
  {#name, callback, length},
    ASYNCCTX_BINDING_FUNCTIONS(ASYNCCTX_BINDING_FUNCTION)
#undef ASYNCCTX_BINDING_FUNCTION
};
const size_t kBindingFunctionCount = std::size(kBindingFunctions);

// The binding functions that never read info.Data() (no ContextState): see
// NewBindingObject.
const v8::FunctionCallback kStatelessBindings[] = {
    GetFrame,
    SetFrame,
    SwapFrame,
    EnqueueMicrotask,
    EnqueueOrGetFrame,
    FatalStackCorruption,
    NewConstructorBinding,
    DefineLazyValueBinding,
};

v8::MaybeLocal<v8::Object> NewBindingHolder(v8::Local<v8::Context> context,
                                            ContextState* state) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::ObjectTemplate> holder_template =
      v8::ObjectTemplate::New(isolate);
  holder_template->SetInternalFieldCount(1);
  v8::Local<v8::Object> holder;
  if (!holder_template->NewInstance(context).ToLocal(&holder))
    return {};
  compat::SetInternalPointer(holder, kHolderStateField, state);
  return handle_scope.Escape(holder);
}

void DetachBindingHolder(v8::Local<v8::Object> holder) {
  compat::SetInternalPointer(holder, kHolderStateField, nullptr);
}

v8::MaybeLocal<v8::Array> NewStackViews(
    v8::Local<v8::Context> context,
    const std::shared_ptr<v8::BackingStore>& stack_store) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::ArrayBuffer> stack_buffer =
      v8::ArrayBuffer::New(isolate, stack_store);
  v8::Local<v8::Value> views[] = {
      v8::Float64Array::New(stack_buffer, 0, ExecutionStack::kFieldCount),
      v8::Uint32Array::New(stack_buffer, ExecutionStack::kDepthOffset, 1),
      v8::Float64Array::New(stack_buffer, ExecutionStack::kFieldsBytes,
                            2 * ExecutionStack::kCapacity),
  };
  return handle_scope.Escape(v8::Array::New(isolate, views, std::size(views)));
}

v8::MaybeLocal<v8::Array> NewLayerTables(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  // The contract's tables (src/layer_contract.h), as Node.js hands its
  // hook constants to JavaScript.
  v8::Local<v8::Object> constants =
      v8::Object::New(isolate, v8::Null(isolate), nullptr, nullptr, 0);
  const std::pair<const char*, int> kConstants[] = {
#define ASYNCCTX_CONSTANT(name, value) {#name, value},
      ASYNCCTX_LAYER_CONSTANTS(ASYNCCTX_CONSTANT)
#undef ASYNCCTX_CONSTANT
  };
  for (const auto& [name, value] : kConstants) {
    if (constants
            ->Set(context, Str(isolate, name), v8::Integer::New(isolate, value))
            .IsNothing()) {
      return {};
    }
  }
  v8::Local<v8::Object> strings =
      v8::Object::New(isolate, v8::Null(isolate), nullptr, nullptr, 0);
  const std::pair<const char*, const char*> kStrings[] = {
#define ASYNCCTX_STRING(name, text) {#name, text},
      ASYNCCTX_LAYER_STRINGS(ASYNCCTX_STRING)
#undef ASYNCCTX_STRING
  };
  for (const auto& [name, text] : kStrings) {
    if (strings->Set(context, Str(isolate, name), Str(isolate, text))
            .IsNothing()) {
      return {};
    }
  }
  // (name, module id) pairs, flat.
  v8::Local<v8::Value> layer_functions[] = {
#define ASYNCCTX_LAYER_FUNCTION(name, module, member) \
  Str(isolate, #name), Str(isolate, module),
      ASYNCCTX_LAYER_FUNCTIONS(ASYNCCTX_LAYER_FUNCTION)
#undef ASYNCCTX_LAYER_FUNCTION
  };
  v8::Local<v8::Value> tables[] = {
      constants,
      strings,
      v8::Array::New(isolate, layer_functions, std::size(layer_functions)),
  };
  for (v8::Local<v8::Value> table : tables) {
    if (table.As<v8::Object>()
            ->SetIntegrityLevel(context, v8::IntegrityLevel::kFrozen)
            .IsNothing()) {
      return {};
    }
  }
  return handle_scope.Escape(
      v8::Array::New(isolate, tables, std::size(tables)));
}

v8::MaybeLocal<v8::Object> NewBindingObject(v8::Local<v8::Context> context,
                                            ContextState* state,
                                            v8::Local<v8::Object> holder,
                                            v8::Local<v8::Array> stack_views,
                                            v8::Local<v8::Array> layer_tables) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  // Null prototypes: a setter a script defined on Object.prototype before
  // Install must not see a binding (getFrame would hand out every frame).
  v8::Local<v8::Object> binding =
      v8::Object::New(isolate, v8::Null(isolate), nullptr, nullptr, 0);
  // Where V8 has its own continuation-data accessors, getFrame and setFrame
  // are those (TurboFan inlines them), and the layer composes swapFrame from
  // them (src/js/frames.js): the native ones are not made.
  v8::Local<v8::Function> get_frame;
  v8::Local<v8::Function> set_frame;
  bool v8_accessors = compat::FrameAccessors(context, &get_frame, &set_frame);
  for (size_t i = 0; i < kBindingFunctionCount; i++) {
    const BindingFunction& f = kBindingFunctions[i];
    if (v8_accessors && (std::strcmp(f.name, "getFrame") == 0 ||
                         std::strcmp(f.name, "setFrame") == 0 ||
                         std::strcmp(f.name, "swapFrame") == 0)) {
      continue;
    }
    // The ones that need no state share one template per runtime (a
    // function of its own per context, but no template and
    // SharedFunctionInfo of its own); the others carry `holder`.
    bool stateless = false;
    for (v8::FunctionCallback callback : kStatelessBindings)
      stateless = stateless || callback == f.callback;
    v8::Local<v8::Function> fn;
    if (!(stateless ? state->runtime->BindingTemplate(i)->GetFunction(context)
                    : NewNativeFunction(context, f.callback, holder, f.length))
             .ToLocal(&fn) ||
        binding->Set(context, Str(isolate, f.name), fn).IsNothing()) {
      return {};
    }
  }
  if (v8_accessors &&
      (binding->Set(context, Str(isolate, "getFrame"), get_frame).IsNothing() ||
       binding->Set(context, Str(isolate, "setFrame"), set_frame).IsNothing() ||
       binding->Set(context, Str(isolate, "swapFrame"), v8::Undefined(isolate))
           .IsNothing())) {
    return {};
  }
  const char* const kViewNames[] = {"fields", "depth", "stack"};
  for (uint32_t i = 0; i < std::size(kViewNames); i++) {
    v8::Local<v8::Value> view;
    if (!stack_views->Get(context, i).ToLocal(&view) ||
        binding->Set(context, Str(isolate, kViewNames[i]), view).IsNothing()) {
      return {};
    }
  }
  v8::Local<v8::ArrayBuffer> hook_buffer =
      v8::ArrayBuffer::New(isolate, state->hook_store);
  state->hook_buffer.Reset(isolate, hook_buffer);
  state->hook_buffer.SetWeak();
  if (binding
          ->Set(context, Str(isolate, "hookFields"),
                v8::Float64Array::New(hook_buffer, 0, kHookFieldCount))
          .IsNothing() ||
      binding
          ->Set(context, Str(isolate, "contextFields"),
                v8::Float64Array::New(hook_buffer,
                                      kHookFieldCount * sizeof(double),
                                      kContextFieldCount))
          .IsNothing()) {
    return {};
  }

  const char* const kTableNames[] = {"constants", "strings", "layerFunctions"};
  for (uint32_t i = 0; i < std::size(kTableNames); i++) {
    v8::Local<v8::Value> table;
    if (!layer_tables->Get(context, i).ToLocal(&table) ||
        binding->Set(context, Str(isolate, kTableNames[i]), table)
            .IsNothing()) {
      return {};
    }
  }

  return handle_scope.Escape(binding);
}

}  // namespace internal
}  // namespace asyncctx
