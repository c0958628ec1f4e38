// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx::CallbackScope: run host code on behalf of an AsyncResource.
//
// Opening the scope pushes {async id, trigger id, resource} on the execution
// stack, enters the resource's context frame (as ContextFrame::Scope does)
// and emits `before`. Closing it emits `after` and pops the stack. The
// outermost scope then runs the microtask checkpoint (unless the host opts
// out), so promise reactions started by the callback run in their frames
// before control returns to the event loop. Last, the previous frame comes
// back: the exact one for a nested scope; for the outermost scope, a macrotask,
// the root of the resource's context, or the frame of another context that
// was current (V8 >= 12 keeps one current frame per isolate).
//
//   asyncctx::CallbackScope scope(timer_resource);
//   v8::TryCatch try_catch(isolate);
//   callback->Call(context, recv, 0, nullptr);
//   if (try_catch.HasCaught()) scope.MarkAsFailed();  // or report it
//
// If the callback throws, or the isolate is terminated, the scope still
// restores the stack and the frame; after TerminateExecution the stack is
// unwound to the depth at which the scope was opened.
//
// A throw that no v8::TryCatch catches (V8 reports it to the runtime's
// uncaught-exception handler) is noticed by the scope itself: no `after`
// hook runs. A host that catches with its own TryCatch calls MarkAsFailed().
// When the callback was terminated (TerminateExecution), the scope runs no
// checkpoint and drops the microtasks the callback queued: their promise
// reactions and queueMicrotask callbacks never run.

#ifndef ASYNCCTX_CALLBACK_SCOPE_H_
#define ASYNCCTX_CALLBACK_SCOPE_H_

#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-local-handle.h"
#include "v8-value.h"

namespace asyncctx {

class AsyncResource;

namespace internal {
// What a CallbackScope keeps of the library's internals, opaque here (the
// library's own sources define no such type; they convert the pointer back).
struct OpaqueContextState;
struct CallbackScopeAccess;
}  // namespace internal

// Runs host code on behalf of an AsyncResource (see the top of this file).
class ASYNCCTX_NODISCARD_EXPORT CallbackScope {
 public:
  // Whether the outermost scope runs the microtask checkpoint when it closes
  // (kRun), or leaves it to the host (kSkip).
  enum class Checkpoint { kRun, kSkip };

  // Must be created inside a HandleScope, which must outlive the scope.
  // `resource` may be destroyed while the scope is open (a callback that
  // cancels its own timer); the scope keeps what it needs. A null resource,
  // or one whose Runtime was destroyed, is a fatal error.
  explicit CallbackScope(AsyncResource* resource,
                         Checkpoint checkpoint = Checkpoint::kRun);
  ~CallbackScope();

  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

  // Tells the scope that the callback threw: `after` is not emitted (as in
  // Node.js). Call it while the host's TryCatch is still alive: if the
  // isolate is terminating then, the checkpoint is skipped and the
  // callback's queued microtasks are dropped.
  void MarkAsFailed();

 private:
  friend struct internal::CallbackScopeAccess;

  // The state of the resource's context (which knows its runtime).
  internal::OpaqueContextState* state_;
  v8::Isolate* isolate_;
  // In the caller's HandleScope.
  v8::Local<v8::Context> context_;
  double async_id_;
  size_t depth_before_;
  bool run_checkpoint_;
  bool failed_ = false;
  bool terminated_ = false;
  bool outermost_;
  // The scope that was innermost when this one opened.
  CallbackScope* enclosing_;
  v8::Global<v8::Value> saved_frame_;
};

// Runs a task that belongs to no AsyncResource (a platform task: V8's
// FinalizationRegistry cleanup, a GC follow-up, the library's batch of
// destroy hooks) as Node.js runs its platform tasks: as a callback scope of
// its own, at the root frame of `context`, where executionAsyncId() and
// triggerAsyncId() are both 0 and no hook fires. Closing the outermost scope
// runs the microtask checkpoint (unless kSkip) and enters the root frame
// again, so that an enterWith() inside one task reaches neither the next
// task nor the jobs that task queues.
//
//   v8::HandleScope handle_scope(isolate);
//   asyncctx::TaskScope scope(context);
//   platform::PumpMessageLoop(platform, isolate);
//
// `context` must be installed; create the scope inside a HandleScope that
// outlives it.
class ASYNCCTX_NODISCARD_EXPORT TaskScope {
 public:
  // Opens the task's scope at the root frame of `context`, with async ids
  // 0/0. `checkpoint` says whether closing the outermost scope runs the
  // microtask checkpoint, as for CallbackScope.
  explicit TaskScope(
      v8::Local<v8::Context> context,
      CallbackScope::Checkpoint checkpoint = CallbackScope::Checkpoint::kRun);
  // Closes the scope: the checkpoint (outermost scope, unless kSkip), then
  // the frame and the async ids that were current before it opened.
  ~TaskScope();

  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  internal::OpaqueContextState* state_;
  v8::Isolate* isolate_;
  v8::Local<v8::Context> context_;
  size_t depth_before_;
  bool run_checkpoint_;
  bool outermost_;
  CallbackScope* enclosing_;
  v8::Global<v8::Value> saved_frame_;
};

// Calls `fn` with `recv` and `argv` inside a CallbackScope for `resource`,
// as Node.js's MakeCallback does. If the function throws, an empty
// MaybeLocal is returned, no `after` hook runs and the execution stack is
// left as it was; the exception reaches the host's v8::TryCatch around the
// call, or, without one, the runtime's uncaught-exception handler. A null
// `resource` is a fatal error; an empty `fn` throws an Error and returns
// empty.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Value> MakeCallback(
    AsyncResource* resource,
    v8::Local<v8::Value> recv,
    v8::Local<v8::Function> fn,
    int argc,
    v8::Local<v8::Value> argv[]);

}  // namespace asyncctx

#endif  // ASYNCCTX_CALLBACK_SCOPE_H_
