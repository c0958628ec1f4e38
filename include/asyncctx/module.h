// Copyright 2026 the asyncctx authors. All rights reserved.
//
// `node:async_hooks` and `node:diagnostics_channel` for hosts that load
// modules.
//
// Libraries written for Node.js reach AsyncLocalStorage and async_hooks as a
// module, not as globals:
//
//   import { AsyncLocalStorage } from 'node:async_hooks';   // ES module
//   const { AsyncResource } = require('async_hooks');        // CommonJS
//
// A host that runs such code returns asyncctx's module from its resolver.
// The module's exports are the very objects Runtime::Install() put into the
// context (the installed `asyncHooks` namespace and the classes in it), so
// code that imports them and code that uses the globals share one
// AsyncLocalStorage class, one hook registry and one id sequence.
//
// An ES module host:
//
//   v8::MaybeLocal<v8::Module> Resolve(v8::Local<v8::Context> context,
//                                      v8::Local<v8::String> specifier,
//                                      v8::Local<v8::FixedArray> attributes,
//                                      v8::Local<v8::Module> referrer) {
//     v8::String::Utf8Value name(context->GetIsolate(), specifier);
//     if (asyncctx::IsAsyncHooksSpecifier(*name))
//       return asyncctx::GetAsyncHooksModule(context);
//     return LoadFromDisk(context, *name, referrer);   // the host's own
//   }
//
// A CommonJS host returns GetAsyncHooksExports(context) from `require` for
// the same specifiers. docs/embedding.md has a complete resolver.

#ifndef ASYNCCTX_MODULE_H_
#define ASYNCCTX_MODULE_H_

#include <string_view>

#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-object.h"
#include "v8-script.h"

namespace asyncctx {

// True for the specifiers Node.js resolves to its async_hooks module:
// "node:async_hooks" and "async_hooks".
ASYNCCTX_EXPORT bool IsAsyncHooksSpecifier(std::string_view specifier);

// The `node:async_hooks` module of `context`: a synthetic v8::Module whose
// named exports are AsyncLocalStorage, AsyncResource, createHook,
// executionAsyncId, triggerAsyncId, executionAsyncResource and
// asyncWrapProviders, and whose default export is the namespace object that
// holds them all (what GetAsyncHooksExports() returns), as Node.js's
// `import asyncHooks from 'node:async_hooks'` gives `module.exports`.
//
// `context` must be installed (Runtime::Install). Every call for one context
// returns the same module for as long as anything holds it, so both
// specifiers name one module and `import * as` gives one namespace. The host
// instantiates and evaluates it like any other module, in `context`;
// evaluation never runs user code. The module is not installed anywhere by
// this call, and it keeps no more alive than its exports do.
//
// Must be called inside a HandleScope, with `context`'s isolate entered;
// `context` must not be empty. Returns an empty handle, with an Error
// pending, if `context` is not installed (a resolver can return that
// as it is: the import then fails with the error).
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Module> GetAsyncHooksModule(
    v8::Local<v8::Context> context);

// What `require('async_hooks')` and `require('node:async_hooks')` return in
// `context`: the installed `asyncHooks` namespace object (a frozen object
// with a null prototype holding createHook, executionAsyncId,
// triggerAsyncId, executionAsyncResource, asyncWrapProviders,
// AsyncLocalStorage and AsyncResource). It exists even when the
// `asyncHooks` global was left out (InstallOptions::async_hooks empty).
//
// Must be called inside a HandleScope, with `context`'s isolate entered.
// Returns an empty handle, with an Error pending, if `context` is not
// installed.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Object> GetAsyncHooksExports(
    v8::Local<v8::Context> context);

// True for "node:diagnostics_channel" and "diagnostics_channel".
ASYNCCTX_EXPORT bool IsDiagnosticsChannelSpecifier(std::string_view specifier);

// The `node:diagnostics_channel` module of `context`, as GetAsyncHooksModule
// is node:async_hooks': named exports channel, hasSubscribers, subscribe,
// unsubscribe, tracingChannel and Channel, and the default export is the
// namespace object (GetDiagnosticsChannelExports). Same rules as
// GetAsyncHooksModule.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Module> GetDiagnosticsChannelModule(
    v8::Local<v8::Context> context);

// What `require('diagnostics_channel')` returns in `context`: the installed
// `diagnosticsChannel` namespace (frozen, null prototype). It exists even
// when the global was left out (InstallOptions::diagnostics_channel empty).
// Same rules as GetAsyncHooksExports.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Object> GetDiagnosticsChannelExports(
    v8::Local<v8::Context> context);

// True for every specifier above (the built-ins asyncctx provides).
ASYNCCTX_EXPORT bool IsBuiltinModuleSpecifier(std::string_view specifier);

// GetAsyncHooksModule or GetDiagnosticsChannelModule, by specifier. For any
// other specifier: empty, with Node's ERR_UNKNOWN_BUILTIN_MODULE Error
// pending ("No such built-in module: <specifier>").
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Module> GetBuiltinModule(
    v8::Local<v8::Context> context,
    std::string_view specifier);

// GetAsyncHooksExports or GetDiagnosticsChannelExports, by specifier (what a
// host's `require` returns for it); ERR_UNKNOWN_BUILTIN_MODULE as
// GetBuiltinModule for any other specifier.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Object> GetBuiltinModuleExports(
    v8::Local<v8::Context> context,
    std::string_view specifier);

// Module evaluation in the empty context.
//
// The AsyncContext proposal evaluates every module, imported statically or
// with import(), in the empty context: a module's top level, its top-level
// await and the jobs it queues see no AsyncLocalStorage store and no
// AsyncContext.Variable value of the code that happened to trigger the
// load, so that the first importer's request does not become the context of
// everything the module does for its lifetime (one instance serves every
// later importer). V8 evaluates in whatever frame is current, so a host
// evaluates through this function instead of Module::Evaluate:
//
//   v8::MaybeLocal<v8::Promise> ImportDynamically(...) {  // V8's callback
//     ...
//     module->InstantiateModule(context, Resolve);
//     asyncctx::EvaluateModule(context, module);  // not module->Evaluate()
//     ...
//   }
//
// The promise that import() returns stays the caller's: reactions attached
// to it (and an `await import(...)`) run in the caller's context as usual.
//
// EvaluateModule calls module->Evaluate(context) with `context`'s root
// frame current, and afterwards puts back the exact frame that was current
// before (also when evaluation throws or is terminated). Statically imported
// modules are evaluated by that same call. Returns what Evaluate returns.
//
// Must be called inside a HandleScope, with `context`'s isolate entered;
// `module` must be instantiated in `context`. Returns an empty handle, with
// an Error pending, if `context` is not installed (then nothing is
// evaluated).
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Value> EvaluateModule(
    v8::Local<v8::Context> context,
    v8::Local<v8::Module> module);

}  // namespace asyncctx

#endif  // ASYNCCTX_MODULE_H_
