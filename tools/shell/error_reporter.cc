// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/error_reporter.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "tools/shell/bindings.h"
#include "tools/shell/global_events.h"
#include "tools/shell/inspect/inspect.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {
namespace {

// Node's GetErrorSource: "file:line", the source line, and carets under the
// part V8 blames. Empty when the message has no script location.
std::string SourceLocation(v8::Local<v8::Context> context,
                           v8::Local<v8::Message> message) {
  if (message.IsEmpty())
    return std::string();
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  int line = message->GetLineNumber(context).FromMaybe(0);
  v8::Local<v8::String> source_line;
  if (line <= 0 || !message->GetSourceLine(context).ToLocal(&source_line))
    return std::string();
  std::string name = ToUtf8(isolate, message->GetScriptResourceName());
  std::string source = ToUtf8(isolate, source_line);
  int start = message->GetStartColumn(context).FromMaybe(0);
  int end = message->GetEndColumn(context).FromMaybe(start + 1);
  std::string carets;
  for (int i = 0; i < start; ++i) {
    carets.push_back(static_cast<size_t>(i) < source.size() && source[i] == '\t'
                         ? '\t'
                         : ' ');
  }
  carets.append(static_cast<size_t>(std::max(end - start, 1)), '^');
  return name + ":" + std::to_string(line) + "\n" + source + "\n" + carets +
         "\n";
}

// The value as Node prints an uncaught one: errors with their stack and own
// properties, anything else inspected. Never throws.
std::string Describe(v8::Local<v8::Context> context,
                     v8::Local<v8::Value> value) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::TryCatch try_catch(isolate);
  std::string text;
  if (!Inspect(context, value).To(&text))
    return ToUtf8(isolate, value);
  // Inspect() brackets an error without stack frames, `[SyntaxError: x]`,
  // which is what a syntax error reported by the compiler looks like here
  // (Node's have frames from its module loader). Print its stack plainly.
  v8::Local<v8::Value> stack;
  if (value->IsNativeError() &&
      value.As<v8::Object>()
          ->Get(context, ToV8String(isolate, "stack"))
          .ToLocal(&stack) &&
      stack->IsString()) {
    std::string bracketed = "[" + ToUtf8(isolate, stack) + "]";
    if (text.compare(0, bracketed.size(), bracketed) == 0)
      text = bracketed.substr(1, bracketed.size() - 2) +
             text.substr(bracketed.size());
  }
  return text;
}

}  // namespace

void ErrorReporter::Fail(const std::string& text) {
  if (failed_)
    return;
  failed_ = true;
  fflush(stdout);
  fwrite(text.data(), 1, text.size(), stderr);
  if (text.empty() || text.back() != '\n')
    fputc('\n', stderr);
  fflush(stderr);
  isolate_->TerminateExecution();
}

void ErrorReporter::ReportException(v8::Local<v8::Context> context,
                                    v8::Local<v8::Value> exception,
                                    v8::Local<v8::Message> message) {
  if (failed_)
    return;
  if (events_ != nullptr && !in_error_event_ &&
      events_->HasListeners("error")) {
    in_error_event_ = true;
    bool prevented = events_->DispatchError(context, exception, message);
    in_error_event_ = false;
    if (prevented || failed_)
      return;
  }
  FailWithException(context, exception, message);
}

void ErrorReporter::FailWithException(v8::Local<v8::Context> context,
                                      v8::Local<v8::Value> exception,
                                      v8::Local<v8::Message> message) {
  if (failed_)
    return;
  v8::HandleScope handle_scope(isolate_);
  if (message.IsEmpty() && exception->IsObject())
    message = v8::Exception::CreateMessage(isolate_, exception);
  std::string location = SourceLocation(context, message);
  if (exception->IsObject()) {
    Fail(location + (location.empty() ? "" : "\n") +
         Describe(context, exception));
  } else {
    // Node prints a thrown primitive as it is (strings unquoted).
    std::string value = exception->IsString() ? ToUtf8(isolate_, exception)
                                              : Describe(context, exception);
    Fail(location + "Uncaught " + value);
  }
}

void ErrorReporter::ReportTryCatch(v8::Local<v8::Context> context,
                                   const v8::TryCatch& try_catch) {
  if (!try_catch.HasCaught() || try_catch.HasTerminated())
    return;
  ReportException(context, try_catch.Exception(), try_catch.Message());
}

void ErrorReporter::ReportUnhandledRejection(v8::Local<v8::Context> context,
                                             v8::Local<v8::Promise> promise,
                                             v8::Local<v8::Value> reason) {
  // A listener for an earlier rejection of the same checkpoint may have
  // handled this one since (the web's rule: handled ones are skipped).
  if (failed_ || promise->HasHandler())
    return;
  v8::HandleScope handle_scope(isolate_);
  if (events_ != nullptr && events_->HasListeners("unhandledrejection") &&
      (events_->DispatchUnhandledRejection(context, promise, reason) ||
       failed_)) {
    return;
  }
  if (reason->IsNativeError()) {
    FailWithException(context, reason, v8::Local<v8::Message>());
    return;
  }
  Fail(
      "[UnhandledPromiseRejection: This error originated either by throwing "
      "inside of an async function without a catch block, or by rejecting a "
      "promise which was not handled with .catch(). The promise rejected "
      "with the reason \"" +
      Describe(context, reason) +
      "\".] {\n  code: 'ERR_UNHANDLED_REJECTION'\n}");
}

void ErrorReporter::ReportHookError(const HookError& error) {
  Fail(error.stack.empty() ? error.message : error.stack);
}

}  // namespace shell
}  // namespace asyncctx
