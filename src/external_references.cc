// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/external_references.h"

#include <vector>

#include "asyncctx/snapshot.h"
#include "src/errors.h"
#include "src/js_bindings.h"
#include "src/runtime_impl.h"

namespace asyncctx {
namespace internal {

namespace {

std::vector<intptr_t> MakeExternalReferences() {
  std::vector<intptr_t> references;
  for (size_t i = 0; i < kBindingFunctionCount; i++)
    references.push_back(
        reinterpret_cast<intptr_t>(kBindingFunctions[i].callback));
  references.push_back(reinterpret_cast<intptr_t>(&ConstructThroughLayer));
  references.push_back(
      reinterpret_cast<intptr_t>(&RuntimeImpl::FlushDestroysMicrotask));
  references.push_back(reinterpret_cast<intptr_t>(&EvaluateAsyncHooksModule));
  references.push_back(
      reinterpret_cast<intptr_t>(&EvaluateDiagnosticsChannelModule));
  references.push_back(reinterpret_cast<intptr_t>(&RuntimeImpl::OnMessage));
  references.push_back(reinterpret_cast<intptr_t>(&MakeLazyGlobal));
  references.push_back(
      reinterpret_cast<intptr_t>(&IsolateTeardownWatch::HoldingListener));
  references.push_back(0);
  return references;
}

}  // namespace

}  // namespace internal

const intptr_t* ExternalReferences() {
  static const std::vector<intptr_t>* const references =
      new std::vector<intptr_t>(internal::MakeExternalReferences());
  return references->data();
}

namespace internal {

void CheckExternalReference(intptr_t address) {
  for (const intptr_t* p = ExternalReferences(); *p != 0; p++) {
    if (*p == address)
      return;
  }
  FatalUsage("internal error",
             "a native function missing from asyncctx::ExternalReferences() "
             "was about to be given to V8 (list it in "
             "src/external_references.cc)");
}

v8::MaybeLocal<v8::Function> NewNativeFunction(v8::Local<v8::Context> context,
                                               v8::FunctionCallback callback,
                                               v8::Local<v8::Value> data,
                                               int length) {
  CheckExternalReference(reinterpret_cast<intptr_t>(callback));
  return v8::Function::New(context, callback, data, length,
                           v8::ConstructorBehavior::kThrow);
}

v8::MaybeLocal<v8::Function> NewNativeConstructor(
    v8::Local<v8::Context> context,
    v8::FunctionCallback callback,
    v8::Local<v8::Value> data,
    int length) {
  CheckExternalReference(reinterpret_cast<intptr_t>(callback));
  return v8::Function::New(context, callback, data, length,
                           v8::ConstructorBehavior::kAllow);
}

}  // namespace internal
}  // namespace asyncctx
