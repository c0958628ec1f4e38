// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ErrorReporter: what the shell does with an error nobody handled. Like
// Node.js, it prints the error to stderr and ends the program with exit code
// 1 right away: the first fatal error stops all JavaScript (through
// TerminateExecution), so no later callback, microtask or unload listener
// runs, and only that first error is printed.
//
// The output follows Node's: the throwing line of source with a caret under
// the throw, then the stack (or the inspected value for non-errors):
//
//   test.js:3
//       throw new Error('boom');
//       ^
//
//   Error: boom
//       at Timeout.<anonymous> (test.js:3:11)
//
// Before that, an uncaught exception is dispatched as an `error` event and
// an unhandled rejection as an `unhandledrejection` event (GlobalEvents); a
// listener that calls preventDefault() handles it and the program goes on.

#ifndef TOOLS_SHELL_ERROR_REPORTER_H_
#define TOOLS_SHELL_ERROR_REPORTER_H_

#include "asyncctx/runtime.h"
#include "tools/shell/inspect/console.h"
#include "v8-context.h"
#include "v8-exception.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-message.h"
#include "v8-value.h"

namespace asyncctx {
namespace shell {

class GlobalEvents;

class ErrorReporter : public ConsoleHost {
 public:
  explicit ErrorReporter(v8::Isolate* isolate) : isolate_(isolate) {}

  // Where `error` and `unhandledrejection` are dispatched (may stay null:
  // every error is then fatal). Must outlive the reporter's use.
  void set_events(GlobalEvents* events) { events_ = events; }

  ErrorReporter(const ErrorReporter&) = delete;
  ErrorReporter& operator=(const ErrorReporter&) = delete;

  // An exception that escaped a script or a callback, called in the frame
  // it escaped from. `message` may be empty (then the location comes from
  // the exception's stack, if any).
  void ReportException(v8::Local<v8::Context> context,
                       v8::Local<v8::Value> exception,
                       v8::Local<v8::Message> message);

  // What `try_catch` caught, unless execution is being terminated (that is
  // the shell stopping after an earlier error, not a new one).
  void ReportTryCatch(v8::Local<v8::Context> context,
                      const v8::TryCatch& try_catch);

  // A promise rejected with `reason` that no handler took by the end of a
  // microtask checkpoint (Node's default --unhandled-rejections=throw).
  // Called in the frame that was current when the promise was rejected.
  void ReportUnhandledRejection(v8::Local<v8::Context> context,
                                v8::Local<v8::Promise> promise,
                                v8::Local<v8::Value> reason);

  // An exception thrown by an async hook callback.
  void ReportHookError(const HookError& error);

  // True once a fatal error happened; the shell then stops.
  bool failed() const { return failed_; }
  // ConsoleHost: the console goes quiet after a fatal error.
  bool OutputEnabled() const override { return !failed_; }
  int exit_code() const { return failed_ ? 1 : 0; }

 private:
  // Prints `text` and stops JavaScript, unless an earlier error did.
  void Fail(const std::string& text);
  // Prints the exception as Node does, and fails.
  void FailWithException(v8::Local<v8::Context> context,
                         v8::Local<v8::Value> exception,
                         v8::Local<v8::Message> message);

  v8::Isolate* isolate_;
  GlobalEvents* events_ = nullptr;
  // An `error` listener is running: what it throws is fatal.
  bool in_error_event_ = false;
  bool failed_ = false;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_ERROR_REPORTER_H_
