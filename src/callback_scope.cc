// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/callback_scope.h"

#include <optional>

#include "asyncctx/async_resource.h"
#include "src/errors.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "v8-exception.h"
#include "v8-primitive.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

namespace {

// The v8::TryCatch that a new TryCatch links to: the host's innermost one,
// or null if the host has none. V8 has no public accessor; this reads the
// private member `next_` (declared in v8-exception.h of 10.2, 13.6 and 14.6)
// through an explicit instantiation, which the standard exempts from access
// checks ([temp.spec.general]). Instantiated in this file only.
using TryCatchLink = v8::TryCatch* v8::TryCatch::*;
template <TryCatchLink Member>
struct TryCatchNextAccess {
  friend TryCatchLink TryCatchNextMember() { return Member; }
};
TryCatchLink TryCatchNextMember();
template struct TryCatchNextAccess<&v8::TryCatch::next_>;

// True if the host has a TryCatch around `probe` (just constructed).
bool HostHasTryCatch(v8::TryCatch* probe) {
  return probe->*TryCatchNextMember() != nullptr;
}

// Returns true when the hook was terminated and V8 has already ended the
// termination (V8 >= 12, see compat::kV8EndsTerminationAtTheTop).
bool CallHook(v8::Isolate* isolate,
              v8::Local<v8::Context> context,
              ContextState* state,
              v8::Global<v8::Function> ContextState::*hook,
              double async_id) {
  v8::Local<v8::Function> fn = state->LayerFunction(context, hook);
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

ContextState* internal::CallbackScopeAccess::State(const CallbackScope& scope) {
  return reinterpret_cast<ContextState*>(scope.state_);
}

void internal::CallbackScopeAccess::MarkFailedByUncaught(CallbackScope* scope) {
  scope->failed_ = true;
}

void internal::CallbackScopeAccess::SkipCheckpoint(CallbackScope* scope) {
  scope->run_checkpoint_ = false;
}

void internal::CallbackScopeAccess::MarkTerminated(CallbackScope* scope) {
  scope->failed_ = true;
  scope->terminated_ = true;
}

CallbackScope::CallbackScope(AsyncResource* resource, Checkpoint checkpoint)
    : run_checkpoint_(checkpoint == Checkpoint::kRun) {
  if (resource == nullptr)
    FatalUsage("CallbackScope", "the resource is null");
  isolate_ = resource->isolate_;
  if (v8::Isolate::GetCurrent() != isolate_) {
    FatalUsage("CallbackScope",
               "the resource's isolate is not entered (use v8::Isolate::Scope)",
               isolate_);
  }
  // In the caller's HandleScope: the scope must not depend on `resource`
  // after the callback, which may delete it.
  context_ = resource->context();
  // The runtime is found through the context's own slots (no lookup by
  // isolate): a destroyed runtime cleared them, and a later one that
  // installed the context again has another generation.
  ContextState* state =
      ContextState::Find(context_, resource->context_embedder_index_);
  if (state == nullptr ||
      state->runtime->generation() != resource->runtime_generation_) {
    FatalUsage("CallbackScope",
               "the resource's Runtime has been destroyed (destroy host "
               "AsyncResources before their Runtime)",
               isolate_);
  }
  RuntimeImpl* runtime = state->runtime;
  async_id_ = resource->async_id_;
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_;
  context->Enter();
  // Valid until the destructor: the caller's HandleScope keeps the context
  // alive, and destroying the runtime while a scope is open is fatal.
  state_ = reinterpret_cast<internal::OpaqueContextState*>(state);
  outermost_ = runtime->callback_scope_depth++ == 0;
  // A terminated callback's microtasks that could not be dropped when its
  // scope closed must not run in this one's checkpoint.
  if (outermost_)
    runtime->DropDeferredMicrotasks();
  enclosing_ = runtime->innermost_scope;
  runtime->innermost_scope = this;

  ExecutionStack& stack = runtime->stack();
  depth_before_ = stack.depth();
  if (!stack.Push(resource->async_id_, resource->trigger_async_id_)) {
    FatalUsage("CallbackScope", "the async context stack is full", isolate_);
  }
  // executionAsyncResource() asks for the JavaScript object only when it is
  // called; the scope itself records a pointer (cleared by ~AsyncResource).
  runtime->SetHostResource(depth_before_, resource);
  resource->open_scopes_++;
  // As ContextFrame::Scope does. A nested scope restores the exact previous
  // frame; the outermost one is a macrotask of the resource's context (see
  // FrameRestore).
  EnterFrameSavingPrevious(runtime, state, context, resource->frame_.frame(),
                           outermost_ ? FrameRestore::kRootUnlessOtherContext
                                      : FrameRestore::kPrevious,
                           &saved_frame_);
  if (state->HasHooks(kHookBefore) &&
      CallHook(isolate_, context, state, &ContextState::emit_before,
               async_id_)) {
    // Terminate again, so that the host's callback does not run after its
    // hook was terminated (V8 10.2 kept the termination by itself).
    isolate_->TerminateExecution();
  }
}

void CallbackScope::MarkAsFailed() {
  failed_ = true;
  // The host's TryCatch still holds a termination here; once it is gone,
  // V8 forgets it.
  if (isolate_->IsExecutionTerminating())
    terminated_ = true;
}

CallbackScope::~CallbackScope() {
  v8::Isolate* isolate = isolate_;
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = context_;
  ContextState* state = internal::CallbackScopeAccess::State(*this);
  RuntimeImpl* runtime = state->runtime;
  if (isolate->IsExecutionTerminating())
    terminated_ = true;
  if (!failed_ && !terminated_ && state->HasHooks(kHookAfter)) {
    // A terminated hook counts even where V8 >= 12 has already ended the
    // termination by the time CallHook returns.
    if (CallHook(isolate, context, state, &ContextState::emit_after, async_id_))
      terminated_ = true;
  }

  // The `after` hooks themselves may have been terminated (a watchdog, or a
  // hook error handler that terminates), skipping JavaScript's pops there.
  if (isolate->IsExecutionTerminating())
    terminated_ = true;
  ExecutionStack& stack = runtime->stack();
  size_t depth = stack.depth();
  if (depth == depth_before_ + 1 && stack.execution_async_id() == async_id_) {
    stack.Pop(async_id_);
  } else if (depth > depth_before_ && (terminated_ || failed_)) {
    // An exception or TerminateExecution skipped JavaScript's own pops: drop
    // their entries, and the resources JavaScript recorded for them.
    stack.UnwindTo(depth_before_);
    for (size_t i = depth_before_ + 1; i < depth; i++)
      runtime->SetResource(state, context, i, v8::Undefined(isolate));
  } else {
    ExecutionStack::FatalCorruption(stack.execution_async_id(), async_id_);
  }
  if (AsyncResource* resource = runtime->HostResourceAt(depth_before_)) {
    resource->open_scopes_--;
  } else {
    // The resource was deleted inside its callback and handed its JavaScript
    // object to the resources list for the rest of the scope.
    runtime->SetResource(state, context, depth_before_, v8::Undefined(isolate));
  }
  runtime->SetHostResource(depth_before_, nullptr);
  runtime->innermost_scope = enclosing_;
  runtime->callback_scope_depth--;
  if (terminated_) {
    // The terminated callback's promise reactions and queueMicrotask
    // callbacks must not run (in its tenant's store) at the next checkpoint.
    if (outermost_)
      runtime->DropMicrotasks(context);
  } else if (outermost_ && run_checkpoint_) {
    runtime->RunMicrotasks(context);
  }
  // After the checkpoint, which leaves the root: on V8 >= 12 the previous
  // frame may be another context's (the continuation data is the isolate's).
  RestorePreviousFrame(isolate, state, context, &saved_frame_);
  context->Exit();
}

TaskScope::TaskScope(v8::Local<v8::Context> context,
                     CallbackScope::Checkpoint checkpoint)
    : isolate_(context.IsEmpty() ? nullptr : compat::IsolateOf(context)),
      context_(context),
      run_checkpoint_(checkpoint == CallbackScope::Checkpoint::kRun) {
  if (isolate_ == nullptr)
    FatalUsage("TaskScope", "the context is empty");
  RuntimeImpl* runtime = RuntimeRegistry::FindOrDie(isolate_, "TaskScope");
  ContextState* state = ContextState::FindOrDie(runtime, context, "TaskScope");
  state_ = reinterpret_cast<internal::OpaqueContextState*>(state);
  context->Enter();
  outermost_ = runtime->callback_scope_depth++ == 0;
  if (outermost_)
    runtime->DropDeferredMicrotasks();
  // An exception the task leaves uncaught belongs to no enclosing scope.
  enclosing_ = runtime->innermost_scope;
  runtime->innermost_scope = nullptr;
  ExecutionStack& stack = runtime->stack();
  depth_before_ = stack.depth();
  if (!stack.Push(0, 0))
    FatalUsage("TaskScope", "the async context stack is full", isolate_);
  runtime->SetHostResource(depth_before_, nullptr);
  EnterFrameSavingPrevious(runtime, state, context, v8::Undefined(isolate_),
                           outermost_ ? FrameRestore::kRootUnlessOtherContext
                                      : FrameRestore::kPrevious,
                           &saved_frame_);
}

TaskScope::~TaskScope() {
  v8::Isolate* isolate = isolate_;
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = context_;
  ContextState* state = reinterpret_cast<ContextState*>(state_);
  RuntimeImpl* runtime = state->runtime;
  ExecutionStack& stack = runtime->stack();
  size_t depth = stack.depth();
  if (depth == depth_before_ + 1 && stack.execution_async_id() == 0) {
    stack.Pop(0);
  } else if (depth > depth_before_) {
    // An exception or TerminateExecution skipped JavaScript's own pops.
    stack.UnwindTo(depth_before_);
    for (size_t i = depth_before_ + 1; i < depth; i++)
      runtime->SetResource(state, context, i, v8::Undefined(isolate));
  } else {
    ExecutionStack::FatalCorruption(stack.execution_async_id(), 0);
  }
  runtime->innermost_scope = enclosing_;
  runtime->callback_scope_depth--;
  if (outermost_) {
    if (isolate->IsExecutionTerminating())
      runtime->DropMicrotasks(context);
    else if (run_checkpoint_)
      runtime->RunMicrotasks(context);
  }
  RestorePreviousFrame(isolate, state, context, &saved_frame_);
  context->Exit();
}

v8::MaybeLocal<v8::Value> MakeCallback(AsyncResource* resource,
                                       v8::Local<v8::Value> recv,
                                       v8::Local<v8::Function> fn,
                                       int argc,
                                       v8::Local<v8::Value> argv[]) {
  if (resource == nullptr)
    FatalUsage("MakeCallback", "the resource is null");
  v8::Isolate* isolate = resource->isolate();
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = resource->context();
  if (fn.IsEmpty()) {
    v8::Context::Scope context_scope(context);
    ThrowError(isolate, "asyncctx: MakeCallback(): the function is empty");
    return {};
  }
  if (recv.IsEmpty())
    recv = v8::Undefined(isolate);
  v8::MaybeLocal<v8::Value> result;
  {
    CallbackScope scope(resource);
    // An exception reaches the host's TryCatch or the JavaScript below, or,
    // with neither, V8 reports it to the message listeners (the runtime's
    // marks the scope failed). In that last case a termination ends when the
    // call returns (every V8: no TryCatch and no JavaScript left), so the
    // scope could not tell it from an exception the host caught: there, a
    // verbose TryCatch of ours sees it, and reports an exception to the
    // listeners exactly as V8 does with no TryCatch at all.
    std::optional<v8::TryCatch> own(std::in_place, isolate);
    if (HostHasTryCatch(&*own) || compat::ScriptFrameBelow(isolate))
      own.reset();
    else
      own->SetVerbose(true);
    result = fn->Call(context, recv, argc, argv);
    if (result.IsEmpty()) {
      scope.MarkAsFailed();
      if (own.has_value()) {
        if (own->HasTerminated())
          internal::CallbackScopeAccess::MarkTerminated(&scope);
      } else if (compat::ScriptFrameBelow(isolate)) {
        internal::CallbackScopeAccess::SkipCheckpoint(&scope);
      }
    }
  }
  v8::Local<v8::Value> value;
  if (!result.ToLocal(&value))
    return {};
  return handle_scope.Escape(value);
}

}  // namespace asyncctx
