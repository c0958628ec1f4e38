// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The native bindings of the JavaScript layer: the `binding` object that
// the layer (src/js/prologue.js and the files joined after it) receives
// when Install() runs it. It carries the native functions the layer calls
// (frame access, microtask queueing, promise hooks, error reporting),
// typed-array views of the shared execution-stack block and of the
// context's hook and context fields, and `constants`, the indices into
// them (defined once, in C++).
//
// Every function reaches its ContextState through a holder object with one
// internal field. The runtime clears that field when it goes away, so a late
// call from JavaScript throws instead of touching freed memory.

#ifndef ASYNCCTX_SRC_JS_BINDINGS_H_
#define ASYNCCTX_SRC_JS_BINDINGS_H_

#include <memory>

#include "v8-array-buffer.h"
#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-local-handle.h"
#include "v8-object.h"

namespace asyncctx {

struct ContextState;

// The ContextState of a native function created with a holder as its data,
// or null after throwing "the Runtime of this context has been destroyed".
ContextState* BindingState(const v8::FunctionCallbackInfo<v8::Value>& info);

// A new holder object whose internal field points to `state`.
v8::MaybeLocal<v8::Object> NewBindingHolder(v8::Local<v8::Context> context,
                                            ContextState* state);

// Points `holder` (from NewBindingHolder) at nothing: later calls of the
// bindings made with it throw "the Runtime of this context has been
// destroyed".
void DetachBindingHolder(v8::Local<v8::Object> holder);

// The binding object handed to the JavaScript layer of `state`'s context.
// `stack_store` is the runtime's execution-stack block.
v8::MaybeLocal<v8::Object> NewBindingObject(
    v8::Local<v8::Context> context,
    ContextState* state,
    v8::Local<v8::Object> holder,
    const std::shared_ptr<v8::BackingStore>& stack_store);

}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_JS_BINDINGS_H_
