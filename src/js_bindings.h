// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The native bindings of the JavaScript layer: the `binding` object that
// the layer's modules (src/js) receive when Install() runs it. It carries the
// native functions the layer calls (frame access, microtask queueing, promise
// hooks, error reporting), typed-array views of the shared execution-stack
// block and of the context's hook and context fields, and `constants`, the
// indices into them, with the other tables of src/layer_contract.h.
//
// Every function reaches its ContextState through a holder object with one
// internal field. The runtime clears that field when it goes away, so a late
// call from JavaScript throws instead of touching freed memory.

#ifndef ASYNCCTX_SRC_JS_BINDINGS_H_
#define ASYNCCTX_SRC_JS_BINDINGS_H_

#include <memory>

#include "v8-array-buffer.h"
#include "v8-container.h"
#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-local-handle.h"
#include "v8-object.h"

namespace asyncctx {
namespace internal {

struct ContextState;

// A native function of the binding object. kBindingFunctions is the one list
// of them (ASYNCCTX_BINDING_FUNCTIONS of src/layer_contract.h):
// NewBindingObject() creates them from it and ExternalReferences()
// (src/external_references.cc) lists their callbacks.
struct BindingFunction {
  const char* name;
  v8::FunctionCallback callback;
  int length;
};
extern const BindingFunction kBindingFunctions[];

// The callback of the constructors made by the binding's newConstructor.
void ConstructThroughLayer(const v8::FunctionCallbackInfo<v8::Value>& info);
extern const size_t kBindingFunctionCount;

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

// The typed-array views of the runtime's execution-stack block
// `stack_store` the JavaScript layer uses (`fields`, `depth`, `stack`, in
// that order), made in `context`. The runtime makes them once, in a context
// of its own, and every installed context's binding shares them: V8 accounts
// the block's size as external memory once per ArrayBuffer, so one buffer
// per context would count the same block once per context.
v8::MaybeLocal<v8::Array> NewStackViews(
    v8::Local<v8::Context> context,
    const std::shared_ptr<v8::BackingStore>& stack_store);

// The getter of an installed global that is made on first use (defined with
// v8::Object::SetLazyDataProperty; V8 replaces it with a data property
// holding what it returns). Its data is the layer's function that makes the
// value (`exports` of src/js/install.js); it calls it with no arguments and
// touches no ContextState, so it works, and throws what the layer throws,
// after the runtime is gone too.
void MakeLazyGlobal(v8::Local<v8::Name> name,
                    const v8::PropertyCallbackInfo<v8::Value>& info);

// The tables of src/layer_contract.h the layer reads (`constants`,
// `strings`, `layerFunctions`, in that order), frozen, made in `context`.
// They hold only numbers and strings: the runtime makes them once, in the
// context of its stack views, and every installed context's binding shares
// them.
v8::MaybeLocal<v8::Array> NewLayerTables(v8::Local<v8::Context> context);

// The binding object handed to the JavaScript layer of `state`'s context.
// `stack_views` comes from NewStackViews(), `layer_tables` from
// NewLayerTables().
v8::MaybeLocal<v8::Object> NewBindingObject(v8::Local<v8::Context> context,
                                            ContextState* state,
                                            v8::Local<v8::Object> holder,
                                            v8::Local<v8::Array> stack_views,
                                            v8::Local<v8::Array> layer_tables);

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_JS_BINDINGS_H_
