// Copyright 2026 the asyncctx authors. All rights reserved.
//
// node:async_hooks and node:diagnostics_channel as synthetic modules
// (include/asyncctx/module.h).
//
// The JavaScript layer of an installed context hands its `asyncHooks` and
// `diagnosticsChannel` namespaces to C++ among its internals (kept in the
// context's embedder data), so each module exports exactly the installed
// objects, whether or not the global was installed. The module is cached weakly
// in the context's state: a strong handle from C++ would keep the context
// alive.

#include "asyncctx/module.h"

#include <string>
#include <vector>

#include "asyncctx/errors.h"

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

// One built-in module: the internals property that holds its namespace,
// its module name, its cache in ContextState and its evaluation steps.
struct Builtin {
  const char* internals_key;
  const char* module_name;
  v8::Global<v8::Module> ContextState::*cache;
  v8::Module::SyntheticModuleEvaluationSteps evaluate;
};

const Builtin kAsyncHooks = {"asyncHooks", "node:async_hooks",
                             &ContextState::async_hooks_module,
                             EvaluateAsyncHooksModule};
const Builtin kDiagnosticsChannel = {"diagnosticsChannel",
                                     "node:diagnostics_channel",
                                     &ContextState::diagnostics_channel_module,
                                     EvaluateDiagnosticsChannelModule};

void ThrowNotInstalled(v8::Isolate* isolate, const Builtin& builtin) {
  std::string message = std::string("asyncctx: ") + builtin.module_name +
                        " needs a context in which Runtime::Install() "
                        "succeeded";
  ThrowError(isolate, message.c_str());
}

const Builtin* FindBuiltin(std::string_view specifier) {
  if (IsAsyncHooksSpecifier(specifier))
    return &kAsyncHooks;
  if (IsDiagnosticsChannelSpecifier(specifier))
    return &kDiagnosticsChannel;
  return nullptr;
}

void ThrowUnknownBuiltin(v8::Local<v8::Context> context,
                         std::string_view specifier) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  std::string message = "No such built-in module: ";
  message.append(specifier.data(), specifier.size());
  v8::Local<v8::Object> error;
  if (MakeNodeError(context, ErrorType::kError, "ERR_UNKNOWN_BUILTIN_MODULE",
                    message.c_str())
          .ToLocal(&error)) {
    isolate->ThrowException(error);
  }
}

v8::Local<v8::String> Str(v8::Isolate* isolate, const char* s) {
  return v8::String::NewFromUtf8(isolate, s, v8::NewStringType::kInternalized)
      .ToLocalChecked();
}

// The layer's namespace of `builtin`. Empty with an exception pending if the
// context is not installed.
v8::MaybeLocal<v8::Object> Namespace(v8::Isolate* isolate,
                                     v8::Local<v8::Context> context,
                                     const Builtin& builtin) {
  ContextState* state =
      ContextState::Find(RuntimeRegistry::Find(isolate), context);
  if (state == nullptr) {
    ThrowNotInstalled(isolate, builtin);
    return {};
  }
  v8::Local<v8::Value> internals = context->GetEmbedderData(
      state->runtime->options().context_embedder_index);
  v8::Local<v8::Value> value;
  if (!internals->IsObject() ||
      !internals.As<v8::Object>()
           ->Get(context, Str(isolate, builtin.internals_key))
           .ToLocal(&value)) {
    return {};
  }
  if (!value->IsObject()) {
    ThrowError(isolate, "asyncctx: internal error: no built-in namespace");
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
v8::MaybeLocal<v8::Value> EvaluateBuiltin(v8::Local<v8::Context> context,
                                          v8::Local<v8::Module> module,
                                          const Builtin& builtin) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Object> exports;
  std::vector<v8::Local<v8::String>> names;
  if (!Namespace(isolate, context, builtin).ToLocal(&exports) ||
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

v8::MaybeLocal<v8::Object> BuiltinExports(v8::Local<v8::Context> context,
                                          const Builtin& builtin,
                                          const char* api) {
  if (context.IsEmpty())
    FatalUsage(api, "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> exports;
  if (!Namespace(isolate, context, builtin).ToLocal(&exports))
    return {};
  return handle_scope.Escape(exports);
}

v8::MaybeLocal<v8::Module> BuiltinModule(v8::Local<v8::Context> context,
                                         const Builtin& builtin,
                                         const char* api) {
  if (context.IsEmpty())
    FatalUsage(api, "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  ContextState* state =
      ContextState::Find(RuntimeRegistry::Find(isolate), context);
  if (state == nullptr) {
    ThrowNotInstalled(isolate, builtin);
    return {};
  }
  v8::Global<v8::Module>& cache = state->*builtin.cache;
  if (!cache.IsEmpty())
    return handle_scope.Escape(cache.Get(isolate));

  v8::Local<v8::Object> exports;
  std::vector<v8::Local<v8::String>> names;
  if (!Namespace(isolate, context, builtin).ToLocal(&exports) ||
      ExportNames(context, exports, &names).IsNothing()) {
    return {};
  }
  CheckExternalReference(reinterpret_cast<intptr_t>(builtin.evaluate));
  v8::Local<v8::Module> module = compat::CreateSyntheticModule(
      isolate, Str(isolate, builtin.module_name), names, builtin.evaluate);
  cache.Reset(isolate, module);
  cache.SetWeak();
  return handle_scope.Escape(module);
}

}  // namespace

bool IsAsyncHooksSpecifier(std::string_view specifier) {
  return specifier == "node:async_hooks" || specifier == "async_hooks";
}

bool IsDiagnosticsChannelSpecifier(std::string_view specifier) {
  return specifier == "node:diagnostics_channel" ||
         specifier == "diagnostics_channel";
}

bool IsBuiltinModuleSpecifier(std::string_view specifier) {
  return FindBuiltin(specifier) != nullptr;
}

v8::MaybeLocal<v8::Object> GetAsyncHooksExports(
    v8::Local<v8::Context> context) {
  return BuiltinExports(context, kAsyncHooks, "GetAsyncHooksExports");
}

v8::MaybeLocal<v8::Module> GetAsyncHooksModule(v8::Local<v8::Context> context) {
  return BuiltinModule(context, kAsyncHooks, "GetAsyncHooksModule");
}

v8::MaybeLocal<v8::Object> GetDiagnosticsChannelExports(
    v8::Local<v8::Context> context) {
  return BuiltinExports(context, kDiagnosticsChannel,
                        "GetDiagnosticsChannelExports");
}

v8::MaybeLocal<v8::Module> GetDiagnosticsChannelModule(
    v8::Local<v8::Context> context) {
  return BuiltinModule(context, kDiagnosticsChannel,
                       "GetDiagnosticsChannelModule");
}

v8::MaybeLocal<v8::Module> GetBuiltinModule(v8::Local<v8::Context> context,
                                            std::string_view specifier) {
  const Builtin* builtin = FindBuiltin(specifier);
  if (builtin == nullptr) {
    if (context.IsEmpty())
      FatalUsage("GetBuiltinModule", "the context is empty");
    ThrowUnknownBuiltin(context, specifier);
    return {};
  }
  return BuiltinModule(context, *builtin, "GetBuiltinModule");
}

v8::MaybeLocal<v8::Object> GetBuiltinModuleExports(
    v8::Local<v8::Context> context,
    std::string_view specifier) {
  const Builtin* builtin = FindBuiltin(specifier);
  if (builtin == nullptr) {
    if (context.IsEmpty())
      FatalUsage("GetBuiltinModuleExports", "the context is empty");
    ThrowUnknownBuiltin(context, specifier);
    return {};
  }
  return BuiltinExports(context, *builtin, "GetBuiltinModuleExports");
}

v8::MaybeLocal<v8::Value> internal::EvaluateAsyncHooksModule(
    v8::Local<v8::Context> context,
    v8::Local<v8::Module> module) {
  return EvaluateBuiltin(context, module, kAsyncHooks);
}

v8::MaybeLocal<v8::Value> internal::EvaluateDiagnosticsChannelModule(
    v8::Local<v8::Context> context,
    v8::Local<v8::Module> module) {
  return EvaluateBuiltin(context, module, kDiagnosticsChannel);
}

}  // namespace asyncctx
