// Copyright 2026 the asyncctx authors. All rights reserved.
//
// node:async_hooks as a synthetic module (include/asyncctx/module.h).
//
// The JavaScript layer of an installed context hands its `asyncHooks`
// namespace to C++ among its internals (kept in the context's embedder
// data), so the module exports exactly the installed objects, whether or not
// the `asyncHooks` global was installed. The module is cached weakly in the
// context's state: a strong handle from C++ would keep the context alive.

#include "asyncctx/module.h"

#include <vector>

#include "src/errors.h"
#include "src/external_references.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-isolate.h"
#include "v8-primitive.h"
#include "v8-promise.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on
namespace {

constexpr char kNotInstalled[] =
    "asyncctx: node:async_hooks needs a context in which Runtime::Install() "
    "succeeded";

v8::Local<v8::String> Str(v8::Isolate* isolate, const char* s) {
  return v8::String::NewFromUtf8(isolate, s, v8::NewStringType::kInternalized)
      .ToLocalChecked();
}

// The layer's `asyncHooks` namespace. Empty with an exception pending if the
// context is not installed.
v8::MaybeLocal<v8::Object> Namespace(v8::Isolate* isolate,
                                     v8::Local<v8::Context> context) {
  ContextState* state =
      ContextState::Find(RuntimeRegistry::Find(isolate), context);
  if (state == nullptr) {
    ThrowError(isolate, kNotInstalled);
    return {};
  }
  v8::Local<v8::Value> internals = context->GetEmbedderData(
      state->runtime->options().context_embedder_index);
  v8::Local<v8::Value> value;
  if (!internals->IsObject() || !internals.As<v8::Object>()
                                     ->Get(context, Str(isolate, "asyncHooks"))
                                     .ToLocal(&value)) {
    return {};
  }
  if (!value->IsObject()) {
    ThrowError(isolate, "asyncctx: internal error: no asyncHooks namespace");
    return {};
  }
  return value.As<v8::Object>();
}

// The export names: every own string key of the namespace, then "default".
// The namespace is frozen, so the names cannot change between the module's
// creation and its evaluation.
v8::Maybe<bool> ExportNames(v8::Local<v8::Context> context,
                            v8::Local<v8::Object> exports,
                            std::vector<v8::Local<v8::String>>* names) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Array> keys;
  if (!exports
           ->GetOwnPropertyNames(context, v8::ONLY_ENUMERABLE,
                                 v8::KeyConversionMode::kConvertToString)
           .ToLocal(&keys)) {
    return v8::Nothing<bool>();
  }
  for (uint32_t i = 0; i < keys->Length(); i++) {
    v8::Local<v8::Value> key;
    if (!keys->Get(context, i).ToLocal(&key))
      return v8::Nothing<bool>();
    names->push_back(key.As<v8::String>());
  }
  names->push_back(Str(isolate, "default"));
  return v8::Just(true);
}

// The module's evaluation steps: bind every export to the namespace's
// current value. Runs no user code (the namespace is a frozen data object).
v8::MaybeLocal<v8::Value> EvaluateAsyncHooks(v8::Local<v8::Context> context,
                                             v8::Local<v8::Module> module) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Object> exports;
  std::vector<v8::Local<v8::String>> names;
  if (!Namespace(isolate, context).ToLocal(&exports) ||
      ExportNames(context, exports, &names).IsNothing()) {
    return {};
  }
  for (v8::Local<v8::String> name : names) {
    v8::Local<v8::Value> value = exports;
    if (!name->StringEquals(Str(isolate, "default")) &&
        !exports->Get(context, name).ToLocal(&value)) {
      return {};
    }
    if (module->SetSyntheticModuleExport(isolate, name, value).IsNothing())
      return {};
  }
  // With top-level await, evaluation steps return a promise.
  v8::Local<v8::Promise::Resolver> resolver;
  if (!v8::Promise::Resolver::New(context).ToLocal(&resolver) ||
      resolver->Resolve(context, v8::Undefined(isolate)).IsNothing()) {
    return {};
  }
  return handle_scope.Escape(resolver->GetPromise());
}

}  // namespace

bool IsAsyncHooksSpecifier(std::string_view specifier) {
  return specifier == "node:async_hooks" || specifier == "async_hooks";
}

v8::MaybeLocal<v8::Object> GetAsyncHooksExports(
    v8::Local<v8::Context> context) {
  if (context.IsEmpty())
    FatalUsage("GetAsyncHooksExports", "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> exports;
  if (!Namespace(isolate, context).ToLocal(&exports))
    return {};
  return handle_scope.Escape(exports);
}

v8::MaybeLocal<v8::Module> GetAsyncHooksModule(v8::Local<v8::Context> context) {
  if (context.IsEmpty())
    FatalUsage("GetAsyncHooksModule", "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  ContextState* state =
      ContextState::Find(RuntimeRegistry::Find(isolate), context);
  if (state == nullptr) {
    ThrowError(isolate, kNotInstalled);
    return {};
  }
  if (!state->async_hooks_module.IsEmpty())
    return handle_scope.Escape(state->async_hooks_module.Get(isolate));

  v8::Local<v8::Object> exports;
  std::vector<v8::Local<v8::String>> names;
  if (!Namespace(isolate, context).ToLocal(&exports) ||
      ExportNames(context, exports, &names).IsNothing()) {
    return {};
  }
  CheckExternalReference(reinterpret_cast<intptr_t>(EvaluateAsyncHooksModule));
  v8::Local<v8::Module> module =
      compat::CreateSyntheticModule(isolate, Str(isolate, "node:async_hooks"),
                                    names, EvaluateAsyncHooksModule);
  state->async_hooks_module.Reset(isolate, module);
  state->async_hooks_module.SetWeak();
  return handle_scope.Escape(module);
}

v8::MaybeLocal<v8::Value> internal::EvaluateAsyncHooksModule(
    v8::Local<v8::Context> context,
    v8::Local<v8::Module> module) {
  return EvaluateAsyncHooks(context, module);
}

}  // namespace asyncctx
