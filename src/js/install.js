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
// Made on first use: Install runs only the modules that every context
// needs (the primordials, errors, the frames and the execution stack, and
// the FinalizationRegistry replacement when it is on); the classes and
// namespaces run their modules when a global that holds them is first read
// (Runtime::Install defines those globals with
// v8::Object::SetLazyDataProperty, which looks like a plain data property
// and becomes one at that first read), and the functions C++ calls
// (hooks, promise hooks, the termination reset) when C++ first asks for
// them (ContextState::LayerFunction): a context where no hook is enabled
// and no frame is entered never runs them.
// Nothing a module does at its top level can be seen by user code or
// depends on the frame that is current when it runs, and every builtin
// it uses was captured by internal/primordials at install, so when that
// happens changes nothing a program can observe.

'use strict';

const {
  FinalizationRegistryCtor,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  defineValue,
} = primordials;
const { constants, defineLazyValue, layerFunctions } = binding;
const { kAttributeReadOnly, kAttributeDontEnum, kAttributeDontDelete } =
    constants;
const { ROOT, kMissing } = require('internal/frames');
const {
  executionAsyncId,
  executionAsyncResource,
  resources,
  triggerAsyncId,
} = require('internal/execution_stack');

let asyncHooks;
function makeAsyncHooks() {
  if (asyncHooks === undefined) {
    // AsyncLocalStorage's module runs internal/promise_hooks, before
    // createHook can be called: enabling a hook refreshes the promise hooks,
    // which that module registers with internal/hooks when it runs (test
    // HooksTest.AHookEnabledFirstInAFreshContextSeesPromises).
    asyncHooks = ObjectFreeze({
      __proto__: null,
      createHook: require('internal/hooks').createHook,
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

// InstallOptions::finalization_registry_context: puts the layer's
// FinalizationRegistry (internal/finalization_registry) in place of V8's, as
// the global and as its prototype's `constructor`, with the attributes
// those had. Both are lazy data properties (binding.defineLazyValue), so the
// module runs, and makes the constructor, at the first read of either; one
// that V8 cannot make lazy (a script before Install made it
// non-configurable) gets the constructor now. All or nothing: a failure
// puts the builtin back. False (nothing done) if the global is missing or
// is not V8's constructor.
function makeFinalizationRegistry() {
  return require('internal/finalization_registry').FinalizationRegistry;
}

function attributesOf(descriptor) {
  return (descriptor.writable ? 0 : kAttributeReadOnly) |
      (descriptor.enumerable ? 0 : kAttributeDontEnum) |
      (descriptor.configurable ? 0 : kAttributeDontDelete);
}

// `key` of `object` as a data property holding `value`, with the attributes
// of `descriptor` (what the property had).
function redefine(object, key, value, descriptor) {
  defineValue(object, key, value, descriptor.writable, descriptor.enumerable,
              descriptor.configurable);
}

function replaceWithLayers(object, key, descriptor) {
  if (descriptor.configurable &&
      defineLazyValue(object, key, attributesOf(descriptor),
                      makeFinalizationRegistry) === true) {
    return;
  }
  redefine(object, key, makeFinalizationRegistry(), descriptor);
}

function installFinalizationRegistry(global) {
  const onGlobal = ObjectGetOwnPropertyDescriptor(global,
                                                  'FinalizationRegistry');
  if (onGlobal === undefined || onGlobal.value !== FinalizationRegistryCtor) {
    return false;
  }
  const prototype = FinalizationRegistryCtor.prototype;
  const onPrototype = ObjectGetOwnPropertyDescriptor(prototype, 'constructor');
  replaceWithLayers(global, 'FinalizationRegistry', onGlobal);
  if (onPrototype !== undefined) {
    try {
      replaceWithLayers(prototype, 'constructor', onPrototype);
    } catch (err) {
      redefine(global, 'FinalizationRegistry', FinalizationRegistryCtor,
               onGlobal);
      throw err;
    }
  }
  return true;
}

// internals.layerFunction(name): the function of ASYNCCTX_LAYER_FUNCTIONS
// called `name`, from the module the table names, which runs now if it has
// not yet (ContextState::LayerFunction asks once for each). The table is
// pairs of (function name, module id); tools/js2c.py checks at build time
// that each module exports its function.
function layerFunction(name) {
  for (let i = 0; i < layerFunctions.length; i += 2) {
    if (layerFunctions[i] === name) return require(layerFunctions[i + 1])[name];
  }
  return undefined;
}

const internals = {
  __proto__: null,
  layerFunction,
  // For DefineGlobals (src/install.cc).
  installFinalizationRegistry,
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

module.exports = {
  __proto__: null,
  exports: {
    __proto__: null,
    AsyncLocalStorage: () =>
      require('internal/async_local_storage').AsyncLocalStorage,
    AsyncResource: () => require('internal/async_resource').AsyncResource,
    AsyncContext: () => require('internal/async_context').AsyncContext,
    queueMicrotask: () => require('internal/queue_microtask').queueMicrotask,
    asyncHooks: makeAsyncHooks,
    diagnosticsChannel: makeDiagnosticsChannel,
  },
  internals,
};
