// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx::AsyncResource: host-originated asynchronous work.
//
// Create one when the host starts something that will call back into
// JavaScript later (a timer, a socket read, a thread-pool job). It takes a new
// async id, records the trigger id and the context frame that are current at
// creation, and emits the `init` hook. Run each callback for it through a
// CallbackScope (or MakeCallback), which enters that frame so that
// AsyncLocalStorage stores and AsyncContext variables flow from the code that
// started the work to the code that handles its completion.
//
// Destroying the C++ object emits the `destroy` hook. It may be destroyed
// inside its own callback (a timer that cancels itself); it must be destroyed
// on the isolate's thread, before its Runtime.

#ifndef ASYNCCTX_ASYNC_RESOURCE_H_
#define ASYNCCTX_ASYNC_RESOURCE_H_

#include <cstdint>
#include <string>

#include "asyncctx/context_frame.h"
#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"

namespace asyncctx {

class Runtime;

// Host-originated asynchronous work: one async id, its trigger id and the
// context frame captured at creation (see the top of this file).
class ASYNCCTX_EXPORT AsyncResource {
 public:
  // Creates a resource of `type` (e.g. "Timeout") in `context`, which must be
  // installed. `resource` is the JavaScript object that
  // executionAsyncResource() returns inside its callbacks and that hooks
  // receive; when empty, a new plain object is created. `trigger_async_id`
  // defaults (when < 0) to the current execution async id.
  //
  // Must be called inside a HandleScope, with `context`'s isolate entered.
  AsyncResource(v8::Local<v8::Context> context,
                const char* type,
                v8::Local<v8::Object> resource = v8::Local<v8::Object>(),
                double trigger_async_id = -1);

  // Emits `destroy` unless EmitDestroy() already did.
  ~AsyncResource();

  AsyncResource(const AsyncResource&) = delete;
  AsyncResource& operator=(const AsyncResource&) = delete;

  // Moves the resource (its ids, frame and pending destroy) into a new
  // object; `other` is left empty and its destructor does nothing. Moving a
  // resource while a CallbackScope for it is open is a fatal error.
  AsyncResource(AsyncResource&& other);
  // Emits `destroy` for this resource (unless already done), then moves
  // `other` into it as the move constructor does.
  AsyncResource& operator=(AsyncResource&& other);

  // Emits the `destroy` hook now. Later calls do nothing.
  void EmitDestroy();

  // The isolate of the context the resource was created in.
  v8::Isolate* isolate() const { return isolate_; }
  // The resource's async id: executionAsyncId() inside its callbacks.
  double async_id() const { return async_id_; }
  // The id of the resource that caused this one: triggerAsyncId() inside its
  // callbacks.
  double trigger_async_id() const { return trigger_async_id_; }
  // The type given at creation, as hooks' `init` receives it.
  const std::string& type() const { return type_; }

  // The JavaScript object hooks receive and executionAsyncResource() returns
  // inside its callbacks. Needs a HandleScope.
  v8::Local<v8::Object> resource() const;
  // The context the resource was created in. Needs a HandleScope.
  v8::Local<v8::Context> context() const;
  // The context frame captured at creation (undefined: the root frame).
  v8::Local<v8::Value> frame() const;

 private:
  friend class CallbackScope;

  // The Runtime::generation-like id of the runtime the resource belongs to
  // (an address could be reused by a later runtime).
  uint64_t runtime_generation_;
  // Where that runtime keeps its state in `context()`
  // (RuntimeOptions::context_embedder_index): CallbackScope finds the
  // runtime from there, without a lookup by isolate.
  int context_embedder_index_;
  v8::Isolate* isolate_;
  // CallbackScopes open for this resource.
  int open_scopes_ = 0;
  double async_id_;
  double trigger_async_id_;
  std::string type_;
  bool destroyed_ = false;
  v8::Global<v8::Object> resource_;
  // The context and the frame current at creation, captured as
  // ContextFrame::Current() does; CallbackScope enters it.
  ContextFrame frame_;
};

// The ids of an async operation that has no object of its own (Node.js's
// async_context).
struct AsyncIds {
  // The operation's async id: executionAsyncId() inside its callbacks.
  double async_id;
  // The id of the operation that caused it: triggerAsyncId().
  double trigger_async_id;
};

// Node.js's EmitAsyncInit for hosts that do not want an object per
// operation: takes a new async id in `context` (which must be installed) and
// emits `init` with `type` and `resource` (a new plain object when empty).
// `trigger_async_id` defaults (when < 0) to the current execution async id.
// Pair it with EmitAsyncDestroy(). Needs a HandleScope.
ASYNCCTX_EXPORT AsyncIds
EmitAsyncInit(v8::Local<v8::Context> context,
              const char* type,
              v8::Local<v8::Object> resource = v8::Local<v8::Object>(),
              double trigger_async_id = -1);

// Node.js's EmitAsyncDestroy: queues the `destroy` hook of `ids` (emitted in
// the next batch, as for AsyncResource).
ASYNCCTX_EXPORT void EmitAsyncDestroy(v8::Local<v8::Context> context,
                                      AsyncIds ids);

}  // namespace asyncctx

#endif  // ASYNCCTX_ASYNC_RESOURCE_H_
