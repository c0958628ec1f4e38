// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8's promise hooks (Context::SetPromiseHooks): PROMISE resources for
// createHook, and the thenable repair (V8 10.2 runs thenable jobs in
// whatever frame is current; the promise the job resolves was created in
// the awaiting frame, so record the frame at init and enter it around the
// job). A promise's frame and ids are private names on the promise
// (frames.js): user code can neither read nor change them.

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

function promiseInitHook(promise, parent) {
  // Recorded whenever the hooks are installed (for the repair or for hook
  // events): `before` needs it to tell a job captured in a non-root frame,
  // which V8 has already entered, from a root job that must start at the
  // root.
  const frame = getFrame();
  if (hookFields[kTotals] > 0) {
    const asyncId = newAsyncId();
    const parentId = parent !== undefined ? promiseAsyncIdOf(parent) :
                                            undefined;
    const trigger = parentId !== undefined ? parentId : defaultTriggerAsyncId();
    stampPromise(promise, isRootFrame(frame) ? undefined : frame, asyncId,
                 trigger);
    if (hookFields[kDestroy] > 0) trackPromise(promise, asyncId);
    emitInit(asyncId, 'PROMISE', trigger, promise);
  } else if (!isRootFrame(frame)) {
    stampPromise(promise, frame, undefined, undefined);
  }
}

// Promise jobs between V8's `before` and `after` hooks right now. V8 calls
// `after` only if the hooks are still installed when the job ends, so they
// are not removed while a job runs: its id would stay on the execution
// stack (and its saved frame in savedFrames). Node defers the same way.
let promiseJobsRunning = 0;
let promiseHooksRemovalQueued = false;

// Set by enterWith. V8 10.2 neither sets nor resets the continuation data
// around a job whose captured frame is undefined, so a frame entered with
// enterWith inside a job would leak into every later such job of the
// checkpoint. Every job must start (and end) at the root frame unless V8 or
// the repair enters the job's own frame: when the frame is dirty, the next
// promise hook puts the root back.
let frameDirty = false;

// V8 >= 12.4 enters each job's own frame and restores the previous one
// after it, for every kind of job: the hooks below only emit events there.
// (Resetting a "dirty" frame or entering the promise's creation frame would
// overwrite the frame V8 chose: the thenable job's resolve() frame, or a
// reaction's then() frame for a promise made before the hooks existed.)
const v8PropagatesFrames = constants.kV8PropagatesFrames === 1;

function resetDirtyFrame() {
  frameDirty = false;
  try { setFrame(ROOT); } catch { restoreFrame(ROOT); }
}

function promiseBeforeHook(promise) {
  promiseJobsRunning++;
  const frame = promiseFrameOf(promise);
  if (v8PropagatesFrames) {
    saveFrame(kNoSwap);
  } else if (frame !== undefined) {
    // V8 has entered this frame already for a reaction job (and will reset
    // it after): nothing to do. A thenable job, which V8 10.2 runs in
    // whatever frame is current, needs it entered here and restored after;
    // a frame left dirty by an enterWith is not restored (it must not
    // survive the job).
    const current = getFrame();
    if (current !== frame) {
      saveFrame(frameDirty ? ROOT : current);
      // Saved already: the frame must be entered even at the stack limit.
      try { setFrame(frame); } catch { restoreFrame(frame); }
    } else {
      saveFrame(kNoSwap);
    }
    frameDirty = false;
  } else {
    // A job captured at the root: V8 enters nothing, so a frame left by an
    // enterWith in an earlier job is reset.
    if (frameDirty) resetDirtyFrame();
    saveFrame(kNoSwap);
  }
  if (hookFields[kTotals] > 0) {
    let asyncId = promiseAsyncIdOf(promise);
    if (asyncId === undefined) {
      // Created before any hook was enabled: it gets its id now, so that
      // before and after still fire for it (as in Node.js).
      asyncId = stampPromiseLazily(promise, newAsyncId(),
                                   defaultTriggerAsyncId());
    }
    if (asyncId !== undefined) {
      pushAsyncContext(asyncId, promiseTriggerIdOf(promise), promise);
      emitBefore(asyncId);
    }
  }
}

// Gives a promise its ids after its creation; returns the async id, or
// undefined if the promise cannot take them.
function stampPromiseLazily(promise, asyncId, triggerId) {
  if (promiseStateOf(promise)) {
    setPromiseIds(promise, asyncId, triggerId);
    return asyncId;
  }
  try {
    stampPromise(promise, undefined, asyncId, triggerId);
  } catch {
    // Newer V8 versions refuse new private fields on an object made
    // non-extensible (by its holder, after creation): no id, no events.
    return undefined;
  }
  return asyncId;
}

function promiseAfterHook(promise) {
  // Zero when the hooks were installed during this job (no `before`).
  if (promiseJobsRunning > 0) promiseJobsRunning--;
  const asyncId = promiseAsyncIdOf(promise);
  if (asyncId !== undefined && fields[kExecutionAsyncId] === asyncId) {
    emitAfter(asyncId);
    popAsyncContext(asyncId);
  }
  if (savedTop > 0) {
    const frame = savedFrames[--savedTop];
    savedFrames[savedTop] = undefined;
    if (frame !== kNoSwap) {
      try { setFrame(frame); } catch { restoreFrame(frame); }
    }
  }
  if (frameDirty && !v8PropagatesFrames) resetDirtyFrame();
}

function promiseResolveHook(promise) {
  const asyncId = promiseAsyncIdOf(promise);
  if (asyncId !== undefined) emitPromiseResolve(asyncId);
}

// Installs or removes V8's promise hooks for this context, depending on
// whether a hook wants promise events or the thenable repair is active.
function refreshPromiseHooks() {
  const wantRepair = contextFields[kRepairActive] > 0;
  const wantEvents = hookFields[kInit] + hookFields[kBefore] +
      hookFields[kAfter] + hookFields[kDestroy] +
      hookFields[kPromiseResolve] > 0;
  if (wantRepair || wantEvents) {
    updatePromiseHooks(
        promiseInitHook, promiseBeforeHook, promiseAfterHook,
        wantEvents && hookFields[kPromiseResolve] > 0 ? promiseResolveHook :
                                                        undefined);
  } else if (promiseJobsRunning > 0) {
    if (!promiseHooksRemovalQueued) {
      promiseHooksRemovalQueued = true;
      enqueueMicrotask(removePromiseHooksLater);
    }
  } else {
    updatePromiseHooks();
  }
}

// A microtask of its own, so no promise job is running now; a count left
// by a job that never reached `after` (TerminateExecution) is stale, and
// must not re-queue this forever.
function removePromiseHooksLater() {
  promiseHooksRemovalQueued = false;
  promiseJobsRunning = 0;
  refreshPromiseHooks();
}

// Turns the thenable repair on in this context the first time a frame is
// entered (by run, enterWith or a Variable), before that frame is current.
// Called by every run while the repair is not active (kRepairActive is 0 or
// 1; undefined once the runtime is destroyed and the fields are detached:
// run then throws before it changes anything).
function activateRepairOnce() {
  const active = contextFields[kRepairActive];
  if (active === 0) {
    if (contextFields[kThenableRepair] !== 0) {
      contextFields[kRepairActive] = 1;
      refreshPromiseHooks();
    }
    return;
  }
  if (active === undefined) throw runtimeDestroyed();
}

// ---------------------------------------------------------------------------
// GC-driven destroy. Registered only while a destroy hook is enabled (at a
// resource's construction, at a promise's init); V8 runs the registry's
// cleanup from a task, outside of GC.

// Ids of tracked resources that emitDestroy() already reported: their GC
// cleanup is skipped. (Registering with an unregister token would let
// emitDestroy() unregister instead, but a token makes every registration
// several times more expensive in V8 10.2.)
const destroyedByHand = new SetCtor();
const destroyRegistry = new FinalizationRegistryCtor((asyncId) => {
  contextFields[kTrackedResources]--;
  if (SetPrototypeDelete(destroyedByHand, asyncId)) return;
  emitDestroyNow(asyncId);
});

function trackForDestroy(object, asyncId) {
  FinalizationRegistryPrototypeRegister(destroyRegistry, object, asyncId);
  contextFields[kTrackedResources]++;
}

function trackPromise(promise, asyncId) {
  trackForDestroy(promise, asyncId);
}
