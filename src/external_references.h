// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The one list of native functions asyncctx hands to V8 (what
// asyncctx::ExternalReferences() returns). Everything that gives V8 a native
// function goes through NewNativeFunction() or CheckExternalReference(),
// which refuse an address missing from the list, so a callback added without
// listing it fails in every test that reaches it, instead of in a host's
// v8::SnapshotCreator ("Unknown external reference").

#ifndef ASYNCCTX_SRC_EXTERNAL_REFERENCES_H_
#define ASYNCCTX_SRC_EXTERNAL_REFERENCES_H_

#include <cstdint>

#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-function.h"
#include "v8-local-handle.h"
#include "v8-script.h"

namespace asyncctx {
namespace internal {

// The evaluation steps of the node:async_hooks module (src/node_module.cc).
v8::MaybeLocal<v8::Value> EvaluateAsyncHooksModule(
    v8::Local<v8::Context> context,
    v8::Local<v8::Module> module);

// The evaluation steps of the node:diagnostics_channel module.
v8::MaybeLocal<v8::Value> EvaluateDiagnosticsChannelModule(
    v8::Local<v8::Context> context,
    v8::Local<v8::Module> module);

// Fatal (an internal error) unless `address` is one of ExternalReferences().
void CheckExternalReference(intptr_t address);

// v8::Function::New(context, callback, data, length, kThrow), for a
// `callback` that must be one of ExternalReferences().
v8::MaybeLocal<v8::Function> NewNativeFunction(v8::Local<v8::Context> context,
                                               v8::FunctionCallback callback,
                                               v8::Local<v8::Value> data,
                                               int length);

// The same with ConstructorBehavior::kAllow: `new` calls `callback` with
// IsConstructCall() and NewTarget() set.
v8::MaybeLocal<v8::Function> NewNativeConstructor(
    v8::Local<v8::Context> context,
    v8::FunctionCallback callback,
    v8::Local<v8::Value> data,
    int length);

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_EXTERNAL_REFERENCES_H_
