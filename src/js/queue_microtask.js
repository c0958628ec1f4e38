// Copyright 2026 the asyncctx authors. All rights reserved.
//
// queueMicrotask. V8 10.2 runs a function queued with EnqueueMicrotask in
// whatever frame is current and resets nothing after it, so a bare callback
// would see a frame left by the job before it, and an enterWith inside it
// would leak into the next ones. Every callback therefore runs through one
// shared runner, queued in its place; the callbacks and their frames wait
// in a FIFO here (no closure per microtask). The runner enters the
// callback's frame (or makes sure the root is current) and restores it
// after. With a hook enabled, each callback gets a Microtask resource and
// its own wrapper. On V8 versions that propagate the frame through
// EnqueueMicrotask themselves, the bare callback is queued.

// The FIFO: a ring of null-prototype lists, holding exactly the callbacks
// whose runners are still queued, so its size is bounded by what is pending
// (it grows by doubling and never holds more than twice that).
let ringCallbacks = newList(16);
let ringFrames = newList(16);
let ringMask = 15;
let ringHead = 0;
let ringCount = 0;
let ringGeneration = -1;

function growRing() {
  const capacity = ringCallbacks.length;
  const callbacks = newList(capacity * 2);
  const frames = newList(capacity * 2);
  for (let i = 0; i < ringCount; i++) {
    const from = (ringHead + i) & ringMask;
    callbacks[i] = ringCallbacks[from];
    frames[i] = ringFrames[from];
  }
  ringCallbacks = callbacks;
  ringFrames = frames;
  ringMask = capacity * 2 - 1;
  ringHead = 0;
}

function clearRing() {
  for (let i = 0; i < ringCallbacks.length; i++) {
    ringCallbacks[i] = undefined;
    ringFrames[i] = undefined;
  }
  ringHead = 0;
  ringCount = 0;
}

function queueMicrotask(callback) {
  if (typeof callback !== 'function') {
    throw invalidArgType('callback', 'function', callback);
  }
  if (hookFields[kTotals] !== 0) {
    queueMicrotaskWithHooks(callback, getFrame());
    return;
  }
  if (ringGeneration !== contextFields[kCheckpointGeneration]) {
    // A checkpoint completed since the last push, so every runner queued
    // before it has run or (after TerminateExecution) was dropped by V8:
    // anything left here is stale.
    ringGeneration = contextFields[kCheckpointGeneration];
    if (ringCount !== 0) clearRing();
  }
  // Room first: once the runner is queued, nothing may throw.
  if (ringCount === ringCallbacks.length) growRing();
  // One native call: queues the runner and returns the current frame (null
  // at the root), or queues the bare callback and returns undefined where
  // V8 propagates frames itself, and at the root while no
  // AsyncLocalStorage exists (nothing could leak from it: the fast path).
  const frame = enqueueOrGetFrame(callback, runQueuedMicrotask,
                                  enterWithPossible ? null : ROOT);
  if (frame === undefined) return;
  const index = (ringHead + ringCount) & ringMask;
  ringCallbacks[index] = callback;
  ringFrames[index] = frame;
  ringCount++;
}

function runQueuedMicrotask() {
  // A runner without a callback is left by a queueMicrotask call that
  // overflowed the stack after V8 queued the runner (it threw to its
  // caller); each callback still runs in its own frame.
  if (ringCount === 0) return;
  const index = ringHead;
  const callback = ringCallbacks[index];
  const frame = ringFrames[index];
  ringCallbacks[index] = undefined;
  ringFrames[index] = undefined;
  ringHead = (index + 1) & ringMask;
  ringCount--;
  if (frameDirty) resetDirtyFrame();
  if (frame === null || frame === ROOT) {
    // The root: nothing to enter; an enterWith inside must not outlive the
    // callback.
    try {
      callback();
    } catch (err) {
      reportUncaught(err);
    }
    if (frameDirty) resetDirtyFrame();
    return;
  }
  const previous = swapFrame(frame);
  try {
    callback();
  } catch (err) {
    reportUncaught(err);
  } finally {
    frameDirty = false;
    setFrame(previous);
  }
}

function queueMicrotaskWithHooks(callback, frame) {
  const asyncId = newAsyncId();
  const trigger = defaultTriggerAsyncId();
  const resource = {__proto__: null, callback};
  emitInit(asyncId, 'Microtask', trigger, resource);
  enqueueMicrotask(() => {
    if (frameDirty) resetDirtyFrame();
    const previous = getFrame();
    pushAsyncContext(asyncId, trigger, resource);
    try {
      setFrame(slotFrame(frame));
      emitBefore(asyncId);
      // As in Node.js: the exception is reported inside the scope, and
      // `after` is still emitted.
      try {
        callback();
      } catch (err) {
        reportUncaught(err);
      }
      emitAfter(asyncId);
    } finally {
      popAsyncContext(asyncId);
      frameDirty = false;
      setFrame(previous);
      if (hookFields[kDestroy] > 0) queueDestroy(asyncId);
    }
  });
}
