// Copyright 2026 the asyncctx authors. All rights reserved.
//
// GC-driven destroy. Registered only while a destroy hook is enabled (at a
// resource's construction, at a promise's init); V8 runs the registry's
// cleanup from a task, outside of GC. contextFields[kTrackedResources]
// counts the registered objects (C++ reads it).

'use strict';

const {
  FinalizationRegistryCtor,
  FinalizationRegistryPrototypeRegister,
  SetCtor,
  SetPrototypeAdd,
  SetPrototypeDelete,
} = primordials;
const { constants, contextFields } = binding;
const { kTrackedResources } = constants;
const { emitDestroyNow } = require('internal/hooks');

// Ids of tracked resources that emitDestroy() already reported: their GC
// cleanup is skipped. (Registering with an unregister token would let
// emitDestroy() unregister instead, but a token makes every registration
// several times more expensive in V8 10.2.) Both are made at the first
// registration: no destroy hook was enabled in this context before.
let destroyedByHand;
let destroyRegistry;

function onCollected(asyncId) {
  contextFields[kTrackedResources]--;
  if (SetPrototypeDelete(destroyedByHand, asyncId)) return;
  emitDestroyNow(asyncId);
}

function trackForDestroy(object, asyncId) {
  if (destroyRegistry === undefined) {
    const byHand = new SetCtor();
    const registry = new FinalizationRegistryCtor(onCollected);
    destroyedByHand = byHand;
    destroyRegistry = registry;
  }
  FinalizationRegistryPrototypeRegister(destroyRegistry, object, asyncId);
  contextFields[kTrackedResources]++;
}

// The tracked object of `asyncId` reported its destroy itself.
function markDestroyedByHand(asyncId) {
  if (destroyedByHand !== undefined) SetPrototypeAdd(destroyedByHand, asyncId);
}

module.exports = {
  __proto__: null,
  trackForDestroy,
  markDestroyedByHand,
};
