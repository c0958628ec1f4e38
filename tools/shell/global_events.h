// Copyright 2026 the asyncctx authors. All rights reserved.
//
// GlobalEvents: `addEventListener` / `removeEventListener` on the global
// object, and the events the shell dispatches there, as in Deno and browsers.
// The `once` option is honoured; a listener is called with `this` the global
// object and one event object.
//
// Lifecycle events (Deno's):
// * `beforeunload` runs each time the event loop drains (work it schedules
//   keeps the loop going), `unload` once at the end. Listeners run in the
//   root context frame, each followed by a microtask checkpoint; an exception
//   a listener throws is uncaught.
//
// Error events (the web's), each cancelable: a listener that calls
// `event.preventDefault()` handles the error, and the shell keeps running.
// Listeners run in the context frame current when the error happened (the
// frame of the callback an exception escaped from; the frame that was
// current when the promise was rejected), so AsyncLocalStorage stores and
// AsyncContext variables read there name the failing request.
// * `error` (an ErrorEvent: `error`, `message`, `filename`, `lineno`,
//   `colno`) for an uncaught exception. An exception thrown by an `error`
//   listener itself is fatal.
// * `unhandledrejection` (a PromiseRejectionEvent: `promise`, `reason`) for
//   a rejection no handler took by the end of a microtask checkpoint. A
//   microtask checkpoint follows the listeners.
// * `rejectionhandled` (a PromiseRejectionEvent) when a handler is attached
//   later to a promise whose `unhandledrejection` was prevented. It is
//   dispatched between the event loop's phases.
// Without a listener that prevents it, an error is fatal (ErrorReporter).

#ifndef TOOLS_SHELL_GLOBAL_EVENTS_H_
#define TOOLS_SHELL_GLOBAL_EVENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "asyncctx/runtime.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-message.h"
#include "v8-persistent-handle.h"
#include "v8-promise.h"
#include "v8-template.h"

namespace asyncctx {
namespace shell {

class ErrorReporter;

class GlobalEvents {
 public:
  // All pointers must outlive this object, and it the context.
  GlobalEvents(v8::Isolate* isolate,
               asyncctx::Runtime* runtime,
               ErrorReporter* reporter);

  GlobalEvents(const GlobalEvents&) = delete;
  GlobalEvents& operator=(const GlobalEvents&) = delete;

  // Defines addEventListener and removeEventListener on the global object.
  // Must run after asyncctx's Install (it keeps AsyncContext.Snapshot to
  // carry the rejecting frame to `rejectionhandled`).
  bool Install(v8::Local<v8::Context> context);

  // Dispatches the lifecycle event `type` ("beforeunload", "unload").
  void DispatchLifecycle(v8::Local<v8::Context> context,
                         const std::string& type);

  // Whether any listener for `type` is registered.
  bool HasListeners(const std::string& type) const;

  // Dispatches `error` for an uncaught `exception` (`message` may be empty).
  // True if a listener called preventDefault().
  bool DispatchError(v8::Local<v8::Context> context,
                     v8::Local<v8::Value> exception,
                     v8::Local<v8::Message> message);

  // Dispatches `unhandledrejection`, in the current frame (the rejecting
  // one), then runs a checkpoint. True if a listener called
  // preventDefault(); the promise is then watched for `rejectionhandled`.
  bool DispatchUnhandledRejection(v8::Local<v8::Context> context,
                                  v8::Local<v8::Promise> promise,
                                  v8::Local<v8::Value> reason);

  // Dispatches `rejectionhandled` for every watched promise that has a
  // handler now. Called by the event loop between its phases.
  void DispatchRejectionHandled(v8::Local<v8::Context> context);

 private:
  struct Listener {
    uint64_t id;
    std::string type;
    v8::Global<v8::Function> callback;
    bool once;
  };
  // A prevented rejection, waiting for a handler.
  struct WatchedRejection {
    v8::Global<v8::Promise> promise;  // weak
    v8::Global<v8::Object> snapshot;  // AsyncContext.Snapshot of its frame
  };

  static void AddEventListener(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void RemoveEventListener(
      const v8::FunctionCallbackInfo<v8::Value>& info);
  static void PreventDefault(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void DefaultPrevented(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void RunRejectionHandled(
      const v8::FunctionCallbackInfo<v8::Value>& info);
  // Parses (type, listener) from a call. False with a pending exception on
  // bad arguments; *callback stays empty for null/undefined listeners, which
  // the DOM ignores.
  static bool ParseArguments(const v8::FunctionCallbackInfo<v8::Value>& info,
                             const char* method,
                             std::string* type,
                             v8::Local<v8::Function>* callback);
  std::vector<Listener>::iterator Find(const std::string& type,
                                       v8::Local<v8::Function> callback);

  // A new event of `event_class` with its `type` and the given own
  // read-only properties. Empty with an exception pending on failure.
  v8::MaybeLocal<v8::Object> NewEvent(
      v8::Local<v8::Context> context,
      const v8::Global<v8::FunctionTemplate>& event_class,
      const std::string& type,
      const std::vector<std::pair<const char*, v8::Local<v8::Value>>>&
          properties);
  // Calls the listeners of `type` in the order they were added, with a
  // microtask checkpoint after each when `checkpoint` is set. Stops after a
  // fatal error. True if the event's preventDefault() was called.
  bool Dispatch(v8::Local<v8::Context> context,
                const std::string& type,
                v8::Local<v8::Object> event,
                bool checkpoint);

  v8::Isolate* const isolate_;
  asyncctx::Runtime* const runtime_;
  ErrorReporter* const reporter_;
  std::vector<Listener> listeners_;
  uint64_t next_id_ = 1;
  v8::Global<v8::FunctionTemplate> event_class_;
  v8::Global<v8::FunctionTemplate> error_event_class_;
  v8::Global<v8::FunctionTemplate> rejection_event_class_;
  v8::Global<v8::Function> snapshot_class_;
  v8::Global<v8::Function> snapshot_run_;
  std::vector<WatchedRejection> watched_;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_GLOBAL_EVENTS_H_
