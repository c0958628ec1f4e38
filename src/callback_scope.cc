// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/callback_scope.h"

#include "asyncctx/async_resource.h"
#include "src/errors.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-exception.h"
#include "v8-primitive.h"

namespace asyncctx {

namespace {

// Returns true when the hook was terminated and V8 has already ended the
// termination (V8 >= 12, see compat::kV8EndsTerminationAtTheTop).
bool CallHook(v8::Isolate* isolate,
              v8::Local<v8::Context> context,
              const v8::Global<v8::Function>& hook,
              double async_id) {
  v8::Local<v8::Function> fn = hook.Get(isolate);
  if (fn.IsEmpty())
    return false;
  v8::Local<v8::Value> argv[] = {v8::Number::New(isolate, async_id)};
  // Hook exceptions are reported by the JavaScript layer itself.
  if (!compat::kV8EndsTerminationAtTheTop) {
    (void)fn->Call(context, v8::Undefined(isolate), 1, argv).IsEmpty();
    return false;
  }
  bool terminated;
  {
    v8::TryCatch try_catch(isolate);
    (void)fn->Call(context, v8::Undefined(isolate), 1, argv).IsEmpty();
    terminated = try_catch.HasTerminated();
  }
  return terminated && !isolate->IsExecutionTerminating();
}

}  // namespace

CallbackScope::CallbackScope(AsyncResource* resource, Checkpoint checkpoint)
    : resource_(resource), run_checkpoint_(checkpoint == Checkpoint::kRun) {
  if (resource == nullptr)
    FatalUsage("CallbackScope", "the resource is null");
  v8::Isolate* isolate = resource->isolate_;
  if (Runtime::From(isolate) != resource->runtime_) {
    FatalUsage("CallbackScope",
               "the resource's Runtime has been destroyed (destroy host "
               "AsyncResources before their Runtime)");
  }
  if (v8::Isolate::GetCurrent() != isolate) {
    FatalUsage(
        "CallbackScope",
        "the resource's isolate is not entered (use v8::Isolate::Scope)");
  }
  runtime_ = static_cast<RuntimeImpl*>(resource->runtime_);
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = resource->context();
  context->Enter();
  ContextState* state = runtime_->StateForOrDie(context, "CallbackScope");
  outermost_ = runtime_->callback_scope_depth++ == 0;

  ExecutionStack& stack = runtime_->stack();
  depth_before_ = stack.depth();
  // The usual outermost scope starts at the root frame: no handle needed.
  v8::Local<v8::Value> previous = CurrentFrame(context);
  if (!previous->IsUndefined() && previous != state->root_frame.Get(isolate))
    saved_frame_.Reset(isolate, previous);
  if (!stack.Push(resource->async_id_, resource->trigger_async_id_)) {
    FatalUsage("CallbackScope", "the async context stack is full");
  }
  // executionAsyncResource() asks for the JavaScript object only when it is
  // called; the scope itself records a pointer.
  runtime_->SetHostResource(depth_before_, resource);
  runtime_->EnterFrame(state, context, resource->frame());
  if (state->HasHooks(kHookBefore) &&
      CallHook(isolate, context, state->emit_before, resource->async_id_)) {
    // Terminate again, so that the host's callback does not run after its
    // hook was terminated (V8 10.2 kept the termination by itself).
    isolate->TerminateExecution();
  }
}

CallbackScope::~CallbackScope() {
  v8::Isolate* isolate = resource_->isolate_;
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = resource_->context();
  ContextState* state = runtime_->StateFor(context);
  bool terminating = isolate->IsExecutionTerminating();
  bool hook_terminated = false;
  if (state != nullptr && !failed_ && !terminating &&
      state->HasHooks(kHookAfter)) {
    hook_terminated =
        CallHook(isolate, context, state->emit_after, resource_->async_id_);
  }

  // The `after` hooks themselves may have been terminated (a watchdog, or a
  // hook error handler that terminates), skipping JavaScript's pops there.
  terminating = isolate->IsExecutionTerminating() || hook_terminated;
  ExecutionStack& stack = runtime_->stack();
  size_t depth = stack.depth();
  if (depth == depth_before_ + 1 &&
      stack.execution_async_id() == resource_->async_id_) {
    stack.Pop(resource_->async_id_);
  } else if (depth > depth_before_ && (terminating || failed_)) {
    // An exception or TerminateExecution skipped JavaScript's own pops: drop
    // their entries, and the resources JavaScript recorded for them.
    stack.UnwindTo(depth_before_);
    if (state != nullptr) {
      for (size_t i = depth_before_ + 1; i < depth; i++) {
        runtime_->SetResource(state, context, i, v8::Undefined(isolate));
      }
    }
  } else {
    ExecutionStack::FatalCorruption(stack.execution_async_id(),
                                    resource_->async_id_);
  }
  runtime_->SetHostResource(depth_before_, nullptr);
  if (saved_frame_.IsEmpty()) {
    compat::SetContinuationData(isolate, context, runtime_->RootFrame(context));
  } else {
    compat::SetContinuationData(isolate, context, saved_frame_.Get(isolate));
    saved_frame_.Reset();
  }

  runtime_->callback_scope_depth--;
  if (outermost_ && run_checkpoint_ && !terminating) {
    runtime_->RunMicrotasks(context);
  }
  context->Exit();
}

v8::MaybeLocal<v8::Value> MakeCallback(AsyncResource* resource,
                                       v8::Local<v8::Value> recv,
                                       v8::Local<v8::Function> fn,
                                       int argc,
                                       v8::Local<v8::Value> argv[]) {
  v8::Isolate* isolate = resource->isolate();
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = resource->context();
  v8::MaybeLocal<v8::Value> result;
  {
    CallbackScope scope(resource);
    v8::TryCatch try_catch(isolate);
    result = fn->Call(context, recv, argc, argv);
    if (try_catch.HasCaught()) {
      scope.MarkAsFailed();
      if (!try_catch.HasTerminated()) {
        auto* runtime = static_cast<RuntimeImpl*>(Runtime::From(isolate));
        runtime->ReportUncaught(context, try_catch.Exception(),
                                try_catch.Message());
      }
      return {};
    }
  }
  v8::Local<v8::Value> value;
  if (!result.ToLocal(&value))
    return {};
  return handle_scope.Escape(value);
}

}  // namespace asyncctx
