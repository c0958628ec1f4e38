// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The thenable repair, and the frame hygiene of jobs. V8 10.2 runs thenable
// jobs in whatever frame is current; the promise the job resolves was
// created in the awaiting frame (internal/promise_hooks records it at init),
// so V8's `before` promise hook enters that frame here and `after` restores
// the previous one.
//
// V8 >= 12.4 enters each job's own frame and restores the previous one
// after it, for every kind of job: nothing here touches the frame there.
// (Resetting a "dirty" frame or entering the promise's creation frame would
// overwrite the frame V8 chose: the thenable job's resolve() frame, or a
// reaction's then() frame for a promise made before the hooks existed.)

'use strict';

const { ObjectFreeze, newList } = primordials;
const { constants } = binding;
const { kV8PropagatesThenables } = constants;
const {
  ROOT,
  getFrame,
  isRootFrame,
  restoreFrame,
  setFrame,
} = require('internal/frames');

const v8PropagatesThenables = kV8PropagatesThenables === 1;

// Frames saved by `before`, restored by `after` (jobs do not nest, but a
// host may run a checkpoint inside a job). A list (newList) with its own
// top index.
let savedFrames = newList(16);
let savedTop = 0;
const kNoSwap = ObjectFreeze({__proto__: null});

function saveFrame(frame) {
  if (savedTop === savedFrames.length) {
    const bigger = newList(savedFrames.length * 2);
    for (let i = 0; i < savedTop; i++) bigger[i] = savedFrames[i];
    savedFrames = bigger;
  }
  savedFrames[savedTop++] = frame;
}

// Set by enterWith (markFrameDirty), with the frame it entered. V8 10.2
// neither sets nor resets the continuation data around a job whose captured
// frame is undefined, so a frame entered with enterWith inside a job would
// leak into every later such job of the checkpoint. Every job must start
// (and end) at the root frame unless V8 or the repair enters the job's own
// frame: when the frame is dirty, the next promise hook or queued microtask
// puts the root back.
let frameDirty = false;
let dirtyFrame;

function markFrameDirty() {
  frameDirty = true;
  // Only where the repair reads it (it holds the frame, and the stores,
  // until the next job or microtask resets it).
  if (!v8PropagatesThenables) dirtyFrame = getFrame();
}

// The job that entered its own frame is over: the frame it leaves is
// replaced by the restore that follows.
function clearFrameDirty() {
  frameDirty = false;
  dirtyFrame = undefined;
}

// Puts the root back if an enterWith left a frame behind.
function resetDirtyFrame() {
  if (frameDirty) {
    clearFrameDirty();
    try { setFrame(ROOT); } catch { restoreFrame(ROOT); }
  }
}

// At V8's `before` hook of a job whose promise recorded `frame` (undefined
// for the root): the frame the promise was created in.
//
// Which frame a job runs in never comes from the promise when V8 has
// entered one: a reaction job (then, await) runs in the frame its then()
// was called in, which V8 captured itself and has entered before this hook
// (whenever that frame is not the root). The promise handed to this hook
// is the reaction's capability, which user code can supply: a Promise
// subclass, or a Symbol.species constructor, may return a promise created
// in another request, or create it inside another store. So a non-root
// frame found here is the job's own, and is kept. (A frame left behind by
// an enterWith, told apart by identity, is reset for a job of the root.)
//
// Only a thenable job (V8 10.2 enters nothing for it) and a reaction whose
// then() ran at the root find the root here; the thenable job must run in
// the frame of the promise it resolves, which the repair enters. (For a
// reaction from the root on a promise made elsewhere this is the
// promise's frame too: V8 10.2 gives the hook no way to tell the two
// apart. docs/semantics.md, "Promise subclasses and species".)
function enterJobFrame(frame) {
  if (v8PropagatesThenables) {
    saveFrame(kNoSwap);
    return;
  }
  const current = getFrame();
  if (!isRootFrame(current)) {
    if (frameDirty && current === dirtyFrame && frame === undefined) {
      // The frame an enterWith left, reaching a job captured at the root.
      resetDirtyFrame();
    } else {
      // V8 entered the reaction's frame (and resets it after the job).
      clearFrameDirty();
    }
    saveFrame(kNoSwap);
  } else if (frame !== undefined) {
    // A thenable job, which V8 10.2 runs in whatever frame is current:
    // its frame is entered here and the previous one restored after; a
    // frame left dirty by an enterWith is not restored (it must not
    // survive the job).
    saveFrame(frameDirty ? ROOT : current);
    clearFrameDirty();
    // Saved already: the frame must be entered even at the stack limit.
    try { setFrame(frame); } catch { restoreFrame(frame); }
  } else {
    // A job captured at the root: V8 enters nothing, so a frame left by an
    // enterWith in an earlier job is reset.
    resetDirtyFrame();
    saveFrame(kNoSwap);
  }
}

// At V8's `after` hook.
function leaveJobFrame() {
  if (savedTop > 0) {
    const frame = savedFrames[--savedTop];
    savedFrames[savedTop] = undefined;
    if (frame !== kNoSwap) {
      try { setFrame(frame); } catch { restoreFrame(frame); }
    }
  }
  if (!v8PropagatesThenables) resetDirtyFrame();
}

// After TerminateExecution (see internal/termination): the `after` hooks
// that would have restored the saved frames never ran.
function resetAfterTermination() {
  for (let i = 0; i < savedTop; i++) savedFrames[i] = undefined;
  savedTop = 0;
  clearFrameDirty();
}

module.exports = {
  __proto__: null,
  markFrameDirty,
  clearFrameDirty,
  resetDirtyFrame,
  enterJobFrame,
  leaveJobFrame,
  resetAfterTermination,
};
