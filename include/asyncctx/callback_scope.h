// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx::CallbackScope: run host code on behalf of an AsyncResource.
//
// Opening the scope pushes {async id, trigger id, resource} on the execution
// stack, enters the resource's context frame and emits `before`. Closing it
// emits `after`, pops the stack and restores the previous frame. The
// outermost scope then runs the microtask checkpoint (unless the host opts
// out), so promise reactions started by the callback run in their frames
// before control returns to the event loop.
//
//   asyncctx::CallbackScope scope(timer_resource);
//   v8::TryCatch try_catch(isolate);
//   callback->Call(context, recv, 0, nullptr);
//   if (try_catch.HasCaught()) scope.MarkAsFailed();  // or report it
//
// If the callback throws, or the isolate is terminated, the scope still
// restores the stack and the frame; after TerminateExecution the stack is
// unwound to the depth at which the scope was opened.

#ifndef ASYNCCTX_CALLBACK_SCOPE_H_
#define ASYNCCTX_CALLBACK_SCOPE_H_

#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-local-handle.h"
#include "v8-value.h"

namespace asyncctx {

class AsyncResource;
class RuntimeImpl;

// Runs host code on behalf of an AsyncResource (see the top of this file).
class ASYNCCTX_EXPORT CallbackScope {
 public:
  // Whether the outermost scope runs the microtask checkpoint when it closes
  // (kRun), or leaves it to the host (kSkip).
  enum class Checkpoint { kRun, kSkip };

  // `resource` must outlive the scope. Must be created inside a HandleScope.
  explicit CallbackScope(AsyncResource* resource,
                         Checkpoint checkpoint = Checkpoint::kRun);
  ~CallbackScope();

  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

  // Tells the scope that the callback threw: `after` is not emitted (as in
  // Node.js) and the microtask checkpoint is skipped when the isolate is
  // terminating.
  void MarkAsFailed() { failed_ = true; }

 private:
  RuntimeImpl* runtime_;
  AsyncResource* resource_;
  size_t depth_before_;
  bool run_checkpoint_;
  bool failed_ = false;
  bool outermost_;
  v8::Global<v8::Value> saved_frame_;
};

// Calls `fn` with `recv` and `argv` inside a CallbackScope for `resource`.
// An exception the function throws is reported to the runtime's uncaught
// exception handler, then an empty MaybeLocal is returned.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Value> MakeCallback(
    AsyncResource* resource,
    v8::Local<v8::Value> recv,
    v8::Local<v8::Function> fn,
    int argc,
    v8::Local<v8::Value> argv[]);

}  // namespace asyncctx

#endif  // ASYNCCTX_CALLBACK_SCOPE_H_
