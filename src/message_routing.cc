// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Message routing: where what V8 and the JavaScript layer report goes. An
// exception nothing caught (V8's message listener) goes to
// RuntimeOptions::on_uncaught_exception and marks the innermost open
// CallbackScope failed; an exception thrown by a hook goes to
// RuntimeOptions::on_hook_error; promise rejections go to the
// RejectionTracker.

#include <string>

#include "asyncctx/callback_scope.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "src/v8_string.h"
#include "v8-debug.h"
#include "v8-exception.h"
#include "v8-message.h"
#include "v8-promise.h"

namespace asyncctx {
namespace internal {

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
  if (IsStackOverflowInPromiseHook(isolate, message)) {
    runtime->OnStackOverflowInPromiseHook(context, error);
    return;
  }
  // The callback of the innermost CallbackScope threw and nothing caught it.
  if (runtime->innermost_scope != nullptr)
    internal::CallbackScopeAccess::MarkFailedByUncaught(
        runtime->innermost_scope);
  runtime->ReportUncaught(context, error, message);
}

// V8 calls the layer's promise hooks itself and reports what they throw as
// an uncaught exception, while the code that made the promise (or called
// then, or awaited) is still running. What the layer's promise hooks let
// through is a stack overflow: at a hook's entry (a promise created at the
// very end of the stack), in the layer, or rethrown from a hook callback as
// the program's (src/js/hooks.js). It is recognised by where it happened:
// JavaScript is still on the stack (an exception that reached the top of a
// callback or a microtask has unwound its JavaScript before V8 reports it),
// wherever V8 places it (at the hook's entry V8 gives the user's location,
// not the layer's).
bool RuntimeImpl::IsStackOverflowInPromiseHook(v8::Isolate* isolate,
                                               v8::Local<v8::Message> message) {
  if (ToStdString(isolate, message->Get())
          .find("Maximum call stack size exceeded") == std::string::npos) {
    return false;
  }
  return v8::StackTrace::CurrentStackTrace(isolate, 1)->GetFrameCount() > 0;
}

// Made by the program's code (or by a hook callback the program called):
// no error of the program's. The hook's bookkeeping for that promise is
// skipped, and the program's own code, which is that deep, gets its
// RangeError at its next call, where it can catch it (as in Node.js 24).
// Made by a hook callback called from inside another hook callback: the
// hooks are recursing through promises, a hook error (as src/js/hooks.js
// rules for what the callbacks throw themselves).
void RuntimeImpl::OnStackOverflowInPromiseHook(v8::Local<v8::Context> context,
                                               v8::Local<v8::Value> error) {
  ContextState* state = ContextState::Find(this, context);
  if (state == nullptr || state->hook_fields[kHookCallDepth] < 2)
    return;
  static constexpr const char* kHookNames[] = {"init", "before", "after",
                                               "destroy", "promiseResolve"};
  double kind = state->hook_fields[kHookRunning];
  ReportHookError(
      kind >= 0 && kind < 5 ? kHookNames[static_cast<int>(kind)] : "init",
      error);
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

}  // namespace internal
}  // namespace asyncctx
