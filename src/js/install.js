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
// What the layer hands back to Runtime::Install: `exports` are
// the APIs installed as globals; `internals` are what C++ calls (kept off
// the globals): the functions of ASYNCCTX_LAYER_FUNCTIONS
// (src/layer_contract.h), each taken from the module the table names, and
// a few values.

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
const { AsyncContext } = require('internal/async_context');
const { AsyncLocalStorage } = require('internal/async_local_storage');
const { AsyncResource } = require('internal/async_resource');
const { queueMicrotask } = require('internal/queue_microtask');
const { diagnosticsChannel } = require('internal/diagnostics_channel');

const asyncHooks = ObjectFreeze({
  __proto__: null,
  createHook,
  executionAsyncId,
  triggerAsyncId,
  executionAsyncResource,
  AsyncLocalStorage,
  AsyncResource,
  asyncWrapProviders: ObjectFreeze({__proto__: null}),
});

const internals = {
  __proto__: null,
  resources,
  rootFrame: ROOT,
  frameMissing: kMissing,
  // For the node:async_hooks module (src/node_module.cc).
  asyncHooks,
  // For the node:diagnostics_channel module (src/node_module.cc).
  diagnosticsChannel: ObjectFreeze(diagnosticsChannel),
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
    AsyncLocalStorage,
    AsyncResource,
    AsyncContext,
    queueMicrotask,
    asyncHooks,
    diagnosticsChannel: internals.diagnosticsChannel,
  },
  internals,
};
