// Copyright 2026 the asyncctx authors. All rights reserved.
//
// GC-driven destroy. Registered only while a destroy hook is enabled (at a
// resource's construction, at a promise's init). The objects are tracked by
// weak handles in C++ (src/destroy_tracker.h), whose ids join the batched
// destroy queue as soon as the GC collects them: nothing waits for a task
// while a chain of microtasks never yields.

'use strict';

const { markDestroyedByHand: markDestroyedByHandNative, trackDestroy } =
  binding;

function trackForDestroy(object, asyncId) {
  trackDestroy(object, asyncId);
}

// The tracked object of `asyncId` reported its destroy itself: its
// collection emits nothing.
function markDestroyedByHand(asyncId) {
  markDestroyedByHandNative(asyncId);
}

module.exports = {
  __proto__: null,
  trackForDestroy,
  markDestroyedByHand,
};
