// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The timer globals, shaped like Node.js's: setTimeout, setInterval and
// setImmediate return Timeout and Immediate objects with ref(), unref() and
// hasRef(); a Timeout also has refresh(), close() and [Symbol.toPrimitive]()
// giving its numeric id (its async id, as in Node), so `clearTimeout(+t)`
// works. clearTimeout and clearInterval accept either form and are the same
// function; clearImmediate takes an Immediate. Delays are coerced like
// Node's: anything that is not a number in [1, 2^31 - 1] becomes 1.
// Bad callbacks throw TypeError [ERR_INVALID_ARG_TYPE].

#ifndef TOOLS_SHELL_TIMERS_H_
#define TOOLS_SHELL_TIMERS_H_

#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"
#include "v8-template.h"

namespace asyncctx {
namespace shell {

class EventLoop;
class Task;

class Timers {
 public:
  // `loop` must outlive this object, and this object the context.
  Timers(v8::Isolate* isolate, EventLoop* loop);

  Timers(const Timers&) = delete;
  Timers& operator=(const Timers&) = delete;

  // Defines the six functions on the context's global object.
  bool Install(v8::Local<v8::Context> context);

 private:
  static void SetTimeout(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void SetInterval(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void SetImmediate(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void ClearTimeout(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void ClearImmediate(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void IllegalConstructor(
      const v8::FunctionCallbackInfo<v8::Value>& info);
  static void Ref(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void Unref(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void HasRef(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void Refresh(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void Close(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void ToPrimitive(const v8::FunctionCallbackInfo<v8::Value>& info);

  static Timers* From(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void StartTimer(const v8::FunctionCallbackInfo<v8::Value>& info,
                         bool repeat);
  // The Task behind `this` of a Timeout or Immediate method (the methods'
  // signature already rejected other receivers). False when the object
  // outlived the event loop.
  bool Unwrap(const v8::FunctionCallbackInfo<v8::Value>& info, Task** task);
  Task* TaskOf(v8::Local<v8::Value> value,
               const v8::Global<v8::FunctionTemplate>& type);
  v8::Local<v8::FunctionTemplate> NewClass(const char* name,
                                           v8::Local<v8::Value> data,
                                           bool is_timeout);

  v8::Isolate* const isolate_;
  EventLoop* const loop_;
  v8::Global<v8::FunctionTemplate> timeout_class_;
  v8::Global<v8::FunctionTemplate> immediate_class_;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_TIMERS_H_
