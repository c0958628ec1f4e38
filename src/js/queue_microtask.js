// Copyright 2026 the asyncctx authors. All rights reserved.
//
// queueMicrotask. V8 10.2 runs a function queued with EnqueueMicrotask in
// whatever frame is current and resets nothing after it, so a bare callback
// would see a frame left by the job before it, and an enterWith inside it
// would leak into the next ones. So unless nothing can leave a frame behind
// (the root frame, no hook, and no AsyncLocalStorage in this context: then
// the bare callback is queued, the fast path), every callback runs through
// one shared runner, queued in its place; the callbacks and their frames
// wait in a FIFO here (no closure per microtask). The runner enters the
// callback's frame (or makes sure the root is current) and restores it
// after. With a hook enabled, each callback gets a Microtask resource and
// its own wrapper. On V8 versions that propagate the frame through
// EnqueueMicrotask themselves, the bare callback is queued.

'use strict';

const { newList } = primordials;
const {
  constants,
  contextFields,
  enqueueMicrotask,
  enqueueOrGetFrame,
  hookFields,
  queueDestroy,
  reportUncaught,
} = binding;
const {
  kDestroy,
  kQueueCheckpoints,
  kTotals,
  kV8PropagatesThenables,
} = constants;
const {
  ROOT,
  getFrame,
  restoreFrame,
  setFrame,
  slotFrame,
  swapFrame,
} = require('internal/frames');
const { invalidArgType } = require('internal/errors');
const {
  defaultTriggerAsyncId,
  newAsyncId,
  popAsyncContext,
  pushAsyncContext,
} = require('internal/execution_stack');
const { emitAfter, emitBefore, emitInit } = require('internal/hooks');
const {
  clearFrameDirty,
  enterRootJob,
  leaveRootJob,
  resetDirtyFrame,
} = require('internal/thenable_repair');

const v8PropagatesThenables = kV8PropagatesThenables === 1;

// Set once an AsyncLocalStorage exists in this context (enterWith is the
// one API that changes the frame without restoring it): from then on a
// callback queued at the root runs through the runner too, so that an
// enterWith inside it cannot leak into the next microtask. The decision has
// to be made when a callback is queued, before anyone can have called
// enterWith in an earlier one.
let enterWithPossible = false;

function allowEnterWith() {
  enterWithPossible = true;
}

// The FIFO: a queue of fixed-size chunks holding exactly the callbacks
// whose runners are still queued, so its memory is bounded by what is
// pending (plus one spare chunk): interleaved chains that never let it
// drain cost nothing more. Chunks are small lists (newList),
// only ever accessed within their length. The first chunk is made at the
// first callback that needs the ring (where V8 propagates frames itself,
// never).
const kChunkSize = 1024;

function newChunk() {
  return {
    callbacks: newList(kChunkSize),
    frames: newList(kChunkSize),
    next: undefined,
  };
}

let headChunk;
let headIndex = 0;
let tailChunk;
let tailIndex = 0;
let pending = 0;
let spareChunk;
let ringCheckpoints = 0;

// Makes room for one more callback (may throw; nothing is changed then).
function reserveSlot() {
  if (tailChunk === undefined) {
    const chunk = newChunk();
    headChunk = chunk;
    tailChunk = chunk;
  } else if (tailIndex === kChunkSize) {
    let chunk = spareChunk;
    if (chunk === undefined) chunk = newChunk();
    spareChunk = undefined;
    tailChunk.next = chunk;
    tailChunk = chunk;
    tailIndex = 0;
  }
}

function clearRing() {
  if (headChunk === undefined) return;
  for (let chunk = headChunk; chunk !== undefined; chunk = chunk.next) {
    for (let i = 0; i < kChunkSize; i++) {
      chunk.callbacks[i] = undefined;
      chunk.frames[i] = undefined;
    }
  }
  headChunk.next = undefined;
  tailChunk = headChunk;
  headIndex = 0;
  tailIndex = 0;
  pending = 0;
}

// A checkpoint of this context's microtask queue completed since the last
// look, so every runner queued before it has run or (after TerminateExecution)
// was dropped by V8: anything left in the ring is stale. (Only this queue's
// checkpoints count: a context with a queue of its own keeps its callbacks
// through the checkpoints of every other queue, and a termination outside a
// checkpoint drops nothing that V8 still holds.)
function clearStaleRing() {
  if (ringCheckpoints === contextFields[kQueueCheckpoints]) return;
  ringCheckpoints = contextFields[kQueueCheckpoints];
  if (pending !== 0) clearRing();
}

function queueMicrotask(callback) {
  if (typeof callback !== 'function') {
    throw invalidArgType('callback', 'function', callback);
  }
  if (hookFields[kTotals] !== 0) {
    queueMicrotaskWithHooks(callback, getFrame());
    return;
  }
  if (v8PropagatesThenables) {
    // V8 >= 12.4 gives the job the current frame and resets it after: the
    // bare callback, with no ring (TurboFan folds this constant).
    enqueueMicrotask(callback);
    return;
  }
  clearStaleRing();
  // Room first: once the runner is queued, nothing may throw.
  reserveSlot();
  // One native call: queues the runner and returns the current frame (null
  // at the root), or queues the bare callback and returns undefined where
  // V8 propagates frames itself, and at the root while no
  // AsyncLocalStorage exists (nothing could leak from it: the fast path).
  const frame = enqueueOrGetFrame(callback, runQueuedMicrotask,
                                  enterWithPossible ? null : ROOT);
  if (frame === undefined) return;
  tailChunk.callbacks[tailIndex] = callback;
  tailChunk.frames[tailIndex] = frame;
  tailIndex++;
  pending++;
}

function runQueuedMicrotask() {
  // A runner without a callback is left by a queueMicrotask call that
  // overflowed the stack after V8 queued the runner (it threw to its
  // caller); each callback still runs in its own frame.
  if (pending === 0) return;
  if (headIndex === kChunkSize) {
    const done = headChunk;
    headChunk = done.next;
    done.next = undefined;
    spareChunk = done;
    headIndex = 0;
  }
  const chunk = headChunk;
  const index = headIndex++;
  const callback = chunk.callbacks[index];
  const frame = chunk.frames[index];
  chunk.callbacks[index] = undefined;
  chunk.frames[index] = undefined;
  pending--;
  resetDirtyFrame();
  if (frame === null || frame === ROOT) {
    // The root, as ROOT (internal/thenable_repair, enterRootJob); an
    // enterWith inside must not outlive the callback.
    enterRootJob();
    try {
      callback();
    } catch (err) {
      reportUncaught(err);
    }
    leaveRootJob();
    return;
  }
  const previous = swapFrame(frame);
  try {
    callback();
  } catch (err) {
    reportUncaught(err);
  } finally {
    clearFrameDirty();
    try { setFrame(previous); } catch { restoreFrame(previous); }
  }
}

function queueMicrotaskWithHooks(callback, frame) {
  const asyncId = newAsyncId();
  const trigger = defaultTriggerAsyncId();
  const resource = {__proto__: null, callback};
  emitInit(asyncId, 'Microtask', trigger, resource);
  enqueueMicrotask(() => {
    resetDirtyFrame();
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
      clearFrameDirty();
      try { setFrame(previous); } catch { restoreFrame(previous); }
      if (hookFields[kDestroy] > 0) queueDestroy(asyncId);
    }
  });
}

// After TerminateExecution (see internal/termination).
function resetAfterTermination() {
  clearStaleRing();
}

module.exports = {
  __proto__: null,
  queueMicrotask,
  allowEnterWith,
  resetAfterTermination,
};
