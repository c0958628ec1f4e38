// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The JavaScript layer of asyncctx: the modules of src/js, linked by
// tools/js2c.py into one script that Runtime::Install() compiles once per
// context and calls with the native binding (src/js_bindings.cc; its names
// and numbers are in src/layer_contract.h). This module is the entry.
//
// Why JavaScript: entering JavaScript from C++ is the expensive step in V8
// (a native `run` calling back through Function::Call costs ~3x a JavaScript
// `run` over native frame accessors), so everything that calls user code
// synchronously lives here, over a few native primitives that own the
// state. Nothing here is reachable from user code except the installed API.
//
// What the layer hands back to Runtime::Install: `exports` holds, for each
// API installed as a global, the function that makes it; `internals` are
// what C++ calls (kept off the globals): the functions of
// ASYNCCTX_LAYER_FUNCTIONS (src/layer_contract.h), each taken from the
// module the table names, and a few values.
//
// Made on first use: Install runs only the modules that C++ and
// queueMicrotask need (the frames, the execution stack, hooks and promise
// hooks); the classes and namespaces run their modules when a global that
// holds them is first read (Runtime::Install defines those globals with
// v8::Object::SetLazyDataProperty, which looks like a plain data property
// and becomes one at that first read), or when C++ first asks for them.
// Nothing a module does at its top level can be seen by user code or
// depends on the frame that is current when it runs, and every builtin
// it uses was captured by internal/primordials at install, so when that
// happens changes nothing a program can observe.

'use strict';

const { ObjectFreeze } = primordials;
const { layerFunctions } = binding;
const { ROOT, kMissing } = require('internal/frames');
const {
  executionAsyncId,
  executionAsyncResource,
  resources,
  triggerAsyncId,
} = require('internal/execution_stack');
const { createHook } = require('internal/hooks');
const { queueMicrotask } = require('internal/queue_microtask');

let asyncHooks;
function makeAsyncHooks() {
  if (asyncHooks === undefined) {
    asyncHooks = ObjectFreeze({
      __proto__: null,
      createHook,
      executionAsyncId,
      triggerAsyncId,
      executionAsyncResource,
      AsyncLocalStorage:
          require('internal/async_local_storage').AsyncLocalStorage,
      AsyncResource: require('internal/async_resource').AsyncResource,
      asyncWrapProviders: ObjectFreeze({__proto__: null}),
    });
  }
  return asyncHooks;
}

let diagnosticsChannel;
function makeDiagnosticsChannel() {
  if (diagnosticsChannel === undefined) {
    diagnosticsChannel = ObjectFreeze(
        require('internal/diagnostics_channel').diagnosticsChannel);
  }
  return diagnosticsChannel;
}

const internals = {
  __proto__: null,
  resources,
  rootFrame: ROOT,
  frameMissing: kMissing,
  // For the node:async_hooks module (src/node_module.cc).
  get asyncHooks() {
    return makeAsyncHooks();
  },
  // For the node:diagnostics_channel module (src/node_module.cc).
  get diagnosticsChannel() {
    return makeDiagnosticsChannel();
  },
  // The brand checks of ContextKey::FromJavaScript (src/context_key.cc):
  // the original methods, taken when their class was made.
  get storageGetStore() {
    return require('internal/async_local_storage').storageGetStore;
  },
  get variableGet() {
    return require('internal/async_context').variableGet;
  },
};
// Pairs of (function name, module id); tools/js2c.py checks at build time
// that each module exports its function.
for (let i = 0; i < layerFunctions.length; i += 2) {
  const name = layerFunctions[i];
  internals[name] = require(layerFunctions[i + 1])[name];
}

module.exports = {
  __proto__: null,
  exports: {
    __proto__: null,
    AsyncLocalStorage: () =>
      require('internal/async_local_storage').AsyncLocalStorage,
    AsyncResource: () => require('internal/async_resource').AsyncResource,
    AsyncContext: () => require('internal/async_context').AsyncContext,
    queueMicrotask: () => queueMicrotask,
    asyncHooks: makeAsyncHooks,
    diagnosticsChannel: makeDiagnosticsChannel,
  },
  internals,
};
