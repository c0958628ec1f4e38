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
const { constants, contextFields, fields } = binding;
const {
  kCheckpointGeneration,
  kHostCheckpoints,
  kMarkedCheckpoint,
  kV8PropagatesThenables,
} = constants;
const {
  ROOT,
  getFrame,
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
// The checkpoint generation at the last `after` hook: a `before` that sees
// another one is the first promise job of a checkpoint (V8 10.2).
let lastJobGeneration = -1;

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

// The root as the slot holds it between jobs. On V8 10.2 that is
// undefined, never ROOT: the slot holds ROOT at a job's `before` hook only
// when V8 entered it for a job queued there (enterJobFrame). V8 clears the
// slot after every job it entered a frame for, the runtime starts its
// checkpoints at undefined (compat::CheckpointStartFrame), and the layer
// leaves every job and queued microtask it enters a frame for at undefined.
const kBetweenJobs = v8PropagatesThenables ? ROOT : undefined;

// Puts the root back (as it is between jobs) if an enterWith left a frame
// behind.
function resetDirtyFrame() {
  if (frameDirty) {
    clearFrameDirty();
    try { setFrame(kBetweenJobs); } catch { restoreFrame(kBetweenJobs); }
  }
}

// Around a job or queued microtask of the root that V8 entered no frame
// for (V8 10.2): it runs at ROOT, so that a then() inside queues its
// reaction at the root (which V8 10.2 captures, and enters), and the slot
// is left as it is between jobs.
function enterRootJob() {
  clearFrameDirty();
  try { setFrame(ROOT); } catch { restoreFrame(ROOT); }
}

function leaveRootJob() {
  clearFrameDirty();
  try { setFrame(kBetweenJobs); } catch { restoreFrame(kBetweenJobs); }
}

// At V8's `before` hook of a job whose promise recorded `frame` (undefined
// for the root): the frame the promise was created in.
//
// Which frame a job runs in never comes from the promise when V8 has
// entered one: a reaction job (then, await) runs in the frame its then()
// was called in, which V8 captured itself and has entered before this hook.
// The promise handed to this hook is the reaction's capability, which user
// code can supply: a Promise subclass, or a Symbol.species constructor, may
// return a promise created in another request, or create it inside another
// store. So a frame found here is the job's own, and is kept, and that
// includes ROOT: between jobs the slot is undefined (kBetweenJobs), so ROOT
// here means that V8 entered it for a reaction queued at the root, whatever
// its capability's frame. (A frame left behind by an enterWith, told apart
// by identity, is reset for a job of the root.)
//
// Only a job V8 entered nothing for finds undefined: a thenable job (V8
// 10.2 captures no frame for it), which must run in the frame of the
// promise it resolves, which the repair enters, or a job of the root,
// which runs at ROOT. (A reaction whose then() ran while the slot was
// undefined, outside every job and task the runtime and the layer run,
// is the one left: docs/semantics.md, "Promise subclasses and species".)
function enterJobFrame(frame) {
  if (v8PropagatesThenables) {
    saveFrame(kNoSwap);
    return;
  }
  const current = getFrame();
  if (current === undefined ||
      (current === ROOT && contextFields[kHostCheckpoints] === 1 &&
       fields[kCheckpointGeneration] !== lastJobGeneration &&
       contextFields[kMarkedCheckpoint] !== fields[kCheckpointGeneration])) {
    // A thenable job, or a job of the root: its frame is entered here and
    // the slot put back to undefined after. (Or, with host_checkpoints, the
    // first promise job of a checkpoint the host started before the marker
    // its task queued first ran, kMarkedCheckpoint: the slot is what the
    // host's task left, ROOT usually, so a thenable job cannot be told from
    // a reaction V8 entered the root for, and it is taken for a thenable
    // job. Only a checkpoint no call into V8 preceded has no marker:
    // docs/semantics.md, "Promise subclasses and species".)
    clearFrameDirty();
    saveFrame(undefined);
    const entered = frame === undefined ? ROOT : frame;
    // Saved already: the frame must be entered even at the stack limit.
    try { setFrame(entered); } catch { restoreFrame(entered); }
  } else if (current !== ROOT && frameDirty && current === dirtyFrame &&
             frame === undefined) {
    // The frame an enterWith left, reaching a job captured at the root.
    clearFrameDirty();
    saveFrame(undefined);
    try { setFrame(ROOT); } catch { restoreFrame(ROOT); }
  } else {
    // V8 entered the reaction's frame, or ROOT (and resets it after the
    // job).
    clearFrameDirty();
    saveFrame(kNoSwap);
  }
}

// At V8's `after` hook.
function leaveJobFrame() {
  if (!v8PropagatesThenables) {
    lastJobGeneration = fields[kCheckpointGeneration];
  }
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
  enterRootJob,
  leaveRootJob,
  enterJobFrame,
  leaveJobFrame,
  resetAfterTermination,
};
