// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8's promise hooks (Context::SetPromiseHooks): PROMISE resources for
// createHook, and the entry points of the thenable repair
// (internal/thenable_repair). A promise's frame and ids are private names on
// the promise (internal/frames): user code can neither read nor change them.

'use strict';

const {
  constants,
  contextFields,
  enqueueMicrotask,
  fields,
  hookFields,
  updatePromiseHooks,
} = binding;
const {
  kExecutionAsyncId,
  kInit,
  kBefore,
  kAfter,
  kDestroy,
  kPromiseResolve,
  kTotals,
  kThenableRepair,
  kRepairActive,
} = constants;
const {
  getFrame,
  isRootFrame,
  promiseAsyncIdOf,
  promiseFrameOf,
  promiseStateOf,
  promiseTriggerIdOf,
  setPromiseIds,
  stampPromise,
} = require('internal/frames');
const { runtimeDestroyed } = require('internal/errors');
const {
  defaultTriggerAsyncId,
  newAsyncId,
  popAsyncContext,
  pushAsyncContext,
} = require('internal/execution_stack');
const {
  emitAfter,
  emitBefore,
  emitInit,
  emitPromiseResolve,
  setRefreshPromiseHooks,
} = require('internal/hooks');
const { enterJobFrame, leaveJobFrame } = require('internal/thenable_repair');
const { trackForDestroy } = require('internal/destroy_registry');

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
    if (hookFields[kDestroy] > 0) trackForDestroy(promise, asyncId);
    emitInit(asyncId, 'PROMISE', trigger, promise);
  } else if (!isRootFrame(frame)) {
    stampPromise(promise, frame, undefined, undefined);
  }
}

// Promise jobs between V8's `before` and `after` hooks right now. V8 calls
// `after` only if the hooks are still installed when the job ends, so they
// are not removed while a job runs: its id would stay on the execution
// stack (and its saved frame in the repair's list). Node defers the same
// way.
let promiseJobsRunning = 0;
let promiseHooksRemovalQueued = false;

function promiseBeforeHook(promise) {
  promiseJobsRunning++;
  enterJobFrame(promiseFrameOf(promise));
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
  leaveJobFrame();
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
setRefreshPromiseHooks(refreshPromiseHooks);

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
      // All or nothing: active only once the promise hooks are installed. A
      // stack overflow before (the realm's first run at the stack limit)
      // leaves it off, the caller gets its RangeError, and the next run
      // tries again.
      contextFields[kRepairActive] = 1;
      try {
        refreshPromiseHooks();
      } catch (err) {
        contextFields[kRepairActive] = 0;
        throw err;
      }
    }
    return;
  }
  if (active === undefined) throw runtimeDestroyed();
}

// After TerminateExecution (see internal/termination): the jobs that never
// reached `after` are not running.
function resetAfterTermination() {
  promiseJobsRunning = 0;
}

module.exports = {
  __proto__: null,
  refreshPromiseHooks,
  activateRepairOnce,
  resetAfterTermination,
};
