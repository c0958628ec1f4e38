// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Lifecycle events as in Deno: `addEventListener('beforeunload', fn)` runs fn
// each time the event loop drains (work it schedules keeps the loop going),
// `addEventListener('unload', fn)` once at the end. removeEventListener
// undoes it; the `once` option is honoured. A listener receives an event
// object `{ type }` with `this` the global object, runs in the root context
// frame, and gets a microtask checkpoint after it; an exception it throws is
// uncaught, so fatal.

#ifndef TOOLS_SHELL_LIFECYCLE_H_
#define TOOLS_SHELL_LIFECYCLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "asyncctx/runtime.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"

namespace asyncctx {
namespace shell {

class ErrorReporter;

class Lifecycle {
 public:
  // All pointers must outlive this object, and it the context.
  Lifecycle(v8::Isolate* isolate,
            asyncctx::Runtime* runtime,
            ErrorReporter* reporter);

  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  // Defines addEventListener and removeEventListener on the global object.
  bool Install(v8::Local<v8::Context> context);

  // Calls the listeners of `type` in the order they were added. Stops after
  // a fatal error.
  void Dispatch(v8::Local<v8::Context> context, const std::string& type);

 private:
  struct Listener {
    uint64_t id;
    std::string type;
    v8::Global<v8::Function> callback;
    bool once;
  };

  static void AddEventListener(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void RemoveEventListener(
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

  v8::Isolate* const isolate_;
  asyncctx::Runtime* const runtime_;
  ErrorReporter* const reporter_;
  std::vector<Listener> listeners_;
  uint64_t next_id_ = 1;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_LIFECYCLE_H_
