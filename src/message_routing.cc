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
#include "src/js_sources.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "src/v8_string.h"
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
  if (IsStackOverflowInLayer(isolate, message))
    return;
  // The callback of the innermost CallbackScope threw and nothing caught it.
  if (runtime->innermost_scope != nullptr)
    internal::CallbackScopeAccess::MarkFailedByUncaught(
        runtime->innermost_scope);
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

}  // namespace internal
}  // namespace asyncctx
