// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The execution stack. Its storage is native memory shared with C++
// (src/execution_stack.h), seen here through typed arrays; the field
// indices come from C++ at install (binding.constants), so they are defined
// once.
//
// Every push and pop is all-or-nothing: whatever can throw (a stack
// overflow, an allocation) happens before the first write to the shared
// fields, and the writes themselves (typed-array stores, stores into
// lists whose elements exist, within their length) cannot throw or reach user
// code.

'use strict';

const { RangeErrorCtor, defineValue, newList } = primordials;
const {
  constants,
  depth: stackDepth,  // stackDepth[0]: the number of entries
  fatalStackCorruption,
  fields,
  hostResourceAt,
  stack,
} = binding;
const {
  kExecutionAsyncId,
  kTriggerAsyncId,
  kAsyncIdCounter,
  kDefaultTriggerAsyncId,
  kStackCapacity,
  kCheckpointGeneration,
} = constants;
const { getFrame, isRootFrame } = require('internal/frames');
const { runtimeDestroyed } = require('internal/errors');

// executionAsyncResource() for each stack entry; index = depth - 1. A list
// whose elements always exist (C++ writes entries of host scopes here too,
// within its length).
const resources = newList(64);

// Makes room for entry `depth` (may throw; nothing is changed then).
function reserveResourceSlot(depth) {
  if (!(depth < fields[kStackCapacity])) {
    // Both undefined once the runtime is destroyed (detached views).
    if (depth === undefined) throw runtimeDestroyed();
    throw new RangeErrorCtor('Maximum async context stack size exceeded');
  }
  if (depth >= resources.length) {
    // Grown in place (C++ holds this array), each new element defined (a
    // store past the end would look for a setter on Array.prototype).
    const target = depth * 2 + 1;
    for (let i = resources.length; i < target; i++) {
      defineValue(resources, i, undefined, true, true);
    }
  }
}

function pushAsyncContext(asyncId, triggerAsyncId, resource) {
  const depth = stackDepth[0];
  reserveResourceSlot(depth);
  // Committed from here on: nothing below can throw.
  const offset = depth * 2;
  stack[offset] = fields[kExecutionAsyncId];
  stack[offset + 1] = fields[kTriggerAsyncId];
  resources[depth] = resource;
  fields[kExecutionAsyncId] = asyncId;
  fields[kTriggerAsyncId] = triggerAsyncId;
  stackDepth[0] = depth + 1;
}

function popAsyncContext(asyncId) {
  const depth = stackDepth[0];
  // Not `=== 0`: undefined once the runtime is destroyed.
  if (!(depth > 0)) return false;
  if (fields[kExecutionAsyncId] !== asyncId) {
    // Never returns: this is stack corruption.
    fatalStackCorruption(fields[kExecutionAsyncId], asyncId);
  }
  const offset = (depth - 1) * 2;
  fields[kExecutionAsyncId] = stack[offset];
  fields[kTriggerAsyncId] = stack[offset + 1];
  stackDepth[0] = depth - 1;
  resources[depth - 1] = undefined;
  return depth > 1;
}

function newAsyncId() {
  const id = ++fields[kAsyncIdCounter];
  if (id !== id) throw runtimeDestroyed();  // NaN: detached views.
  return id;
}

function executionAsyncId() {
  const id = fields[kExecutionAsyncId];
  if (id === undefined) throw runtimeDestroyed();
  return id;
}

function triggerAsyncId() {
  const id = fields[kTriggerAsyncId];
  if (id === undefined) throw runtimeDestroyed();
  return id;
}

function defaultTriggerAsyncId() {
  const id = fields[kDefaultTriggerAsyncId];
  if (id === undefined) throw runtimeDestroyed();
  return id < 0 ? fields[kExecutionAsyncId] : id;
}

// What executionAsyncResource() returns where no resource is on the stack
// (the top level, and promise reactions and microtasks while no hook is
// enabled). Node.js returns one shared extensible object there, so that
// `executionAsyncResource()[sym] = state` works, but one object shared by
// every request would be a channel between them (one stores, another
// reads). Here it is extensible too, and belongs to the current frame: code
// running in the same frame (the same request: same stores, same
// variables) gets the same object, code in another frame another one. At
// the root frame it is renewed at every checkpoint and host callback.
let topLevelResource = {};
let topLevelGeneration = -1;

function executionAsyncResource() {
  const depth = stackDepth[0];
  if (depth === undefined) throw runtimeDestroyed();
  if (depth !== 0) {
    const resource = resources[depth - 1];
    if (resource !== undefined) return resource;
    // Entries pushed by a host CallbackScope are looked up in C++.
    const hostResource = hostResourceAt(depth - 1);
    if (hostResource !== undefined) return hostResource;
  }
  const frame = getFrame();
  if (!isRootFrame(frame)) {
    let resource = frame.resource;
    if (resource === undefined) {
      resource = {};
      frame.resource = resource;
    }
    return resource;
  }
  const generation = fields[kCheckpointGeneration];
  if (generation !== topLevelGeneration) {
    topLevelGeneration = generation;
    topLevelResource = {};
  }
  return topLevelResource;
}

// After TerminateExecution (see internal/termination): C++ empties the
// execution stack itself; the resources of its entries go.
function resetAfterTermination() {
  for (let i = 0; i < resources.length; i++) resources[i] = undefined;
}

module.exports = {
  __proto__: null,
  resources,
  pushAsyncContext,
  popAsyncContext,
  newAsyncId,
  executionAsyncId,
  triggerAsyncId,
  defaultTriggerAsyncId,
  executionAsyncResource,
  resetAfterTermination,
};
