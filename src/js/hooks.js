// Copyright 2026 the asyncctx authors. All rights reserved.
//
// createHook and the hook emitters. hookFields (one Float64Array per
// context, shared with C++) counts the enabled hooks by kind; the indices
// come from C++ at install. Hook lists are copied on write, so enabling or
// disabling a hook while hooks run takes effect at the next event, as
// Node.js documents.

'use strict';

const { TypeErrorCtor, newList } = primordials;
const { constants, fields, hookFields, reportHookError } = binding;
const {
  kInit,
  kBefore,
  kAfter,
  kDestroy,
  kPromiseResolve,
  kTotals,
  kHookCallDepth,
  kRunningHook,
  kHookCallsOpen,
} = constants;
const { isProgramStackOverflow, makeError } = require('internal/errors');

// internal/promise_hooks installs V8's promise hooks from the counts above
// whenever they change. It requires this module (for the emitters), so it
// hands its refresh function in when it loads instead of being required.
let refreshPromiseHooks;
function setRefreshPromiseHooks(refresh) {
  refreshPromiseHooks = refresh;
}

// One list per kind, holding the enabled hooks that have that callback.
// Lists are replaced, never mutated, while hooks may be running (so the
// kinds can share one empty list).
const kNoHooks = newList(0);
let initHooks = kNoHooks;
let beforeHooks = kNoHooks;
let afterHooks = kNoHooks;
let destroyHooks = kNoHooks;
let promiseResolveHooks = kNoHooks;
let callInitHooks;
let callBeforeHooks;
let callAfterHooks;
let callDestroyHooks;
let callPromiseResolveHooks;

// The class, with the emitters in its static block, made at the first
// createHook (until then no hook can be enabled, and no emitter is called).
let AsyncHook;

function defineAsyncHook() {
  AsyncHook = class AsyncHook {
    // Private fields keep every hook the same shape, and `hook.#init(...)`
    // is a plain method call that TurboFan inlines, with `this` the hook, as
    // in Node.js.
    #init;
    #before;
    #after;
    #destroy;
    #promiseResolve;
    #enabled = false;

    constructor(callbacks) {
      this.#init = hookCallback(callbacks, 'init');
      this.#before = hookCallback(callbacks, 'before');
      this.#after = hookCallback(callbacks, 'after');
      this.#destroy = hookCallback(callbacks, 'destroy');
      this.#promiseResolve = hookCallback(callbacks, 'promiseResolve');
    }

    enable() {
      if (this.#enabled) return this;
      this.#update(1);
      return this;
    }

    disable() {
      if (!this.#enabled) return this;
      this.#update(-1);
      return this;
    }

    // All-or-nothing: the new lists are built first (where a stack overflow
    // or an allocation failure can still throw), then committed, and undone
    // if V8's promise hooks cannot follow, so the lists, the counts and the
    // promise hooks always agree.
    #update(delta) {
      const hasInit = this.#init !== undefined;
      const hasBefore = this.#before !== undefined;
      const hasAfter = this.#after !== undefined;
      const hasDestroy = this.#destroy !== undefined;
      const hasResolve = this.#promiseResolve !== undefined;
      const nextInit = hasInit ? withHook(initHooks, this, delta) : initHooks;
      const nextBefore =
          hasBefore ? withHook(beforeHooks, this, delta) : beforeHooks;
      const nextAfter = hasAfter ? withHook(afterHooks, this, delta) : afterHooks;
      const nextDestroy =
          hasDestroy ? withHook(destroyHooks, this, delta) : destroyHooks;
      const nextResolve = hasResolve ?
          withHook(promiseResolveHooks, this, delta) :
          promiseResolveHooks;
      const lists = [initHooks, beforeHooks, afterHooks, destroyHooks,
                     promiseResolveHooks];
      let counted = false;
      try {
        setHookLists(nextInit, nextBefore, nextAfter, nextDestroy, nextResolve);
        this.#count(delta);
        counted = true;
        refreshPromiseHooks();
      } catch (err) {
        // A stack overflow before V8's promise hooks changed: undone, so
        // that the counts, the lists and the promise hooks still agree, and
        // the call changes nothing. Plain assignments only: a call here is
        // at the depth that just overflowed, and could overflow again
        // (leaving the change made while the caller gets a RangeError).
        initHooks = lists[0];
        beforeHooks = lists[1];
        afterHooks = lists[2];
        destroyHooks = lists[3];
        promiseResolveHooks = lists[4];
        if (counted) {
          if (hasInit) hookFields[kInit] -= delta;
          if (hasBefore) hookFields[kBefore] -= delta;
          if (hasAfter) hookFields[kAfter] -= delta;
          if (hasDestroy) hookFields[kDestroy] -= delta;
          if (hasResolve) hookFields[kPromiseResolve] -= delta;
          hookFields[kTotals] -= delta;
          this.#enabled = delta < 0;
        }
        throw err;
      }
    }

    // Plain assignments only (nothing here can throw).
    #count(delta) {
      if (this.#init !== undefined) hookFields[kInit] += delta;
      if (this.#before !== undefined) hookFields[kBefore] += delta;
      if (this.#after !== undefined) hookFields[kAfter] += delta;
      if (this.#destroy !== undefined) hookFields[kDestroy] += delta;
      if (this.#promiseResolve !== undefined) {
        hookFields[kPromiseResolve] += delta;
      }
      hookFields[kTotals] += delta;
      this.#enabled = delta > 0;
    }

    // The emitters live in a static block: they read the private callbacks,
    // and they are not reachable from user code (not even through
    // hook.constructor).
    //
    // What a hook callback throws is a hook error (fatal by default, as in
    // Node.js), with one exception: a stack overflow of the program's own
    // depth. A hook called straight from the program (the hook call depth is
    // 1) that overflows while the stack is still at its limit where it is
    // caught here was entered that deep by the program, whose code gets the
    // RangeError (rethrown), as it would without the hook. A hook that
    // overflowed by its own recursion has unwound to a shallow stack by then,
    // and a hook called from inside a hook (depth 2 or more: hooks making
    // resources or promises that run hooks) is recursing through the hooks:
    // both are hook errors. The last rule is also what keeps a program that
    // catches its overflows from retrying such a recursion at every level
    // (time exponential in the depth). Nothing before the depth test calls a
    // function, which could itself overflow at the limit. The depth and the
    // running kind are shared with C++, which applies the same rule to an
    // overflow in V8's promise hooks (src/message_routing.cc); and
    // fields[kHookCallsOpen] counts the open callers of every context of the
    // isolate for C++, which takes one left open with no JavaScript running
    // for a TerminateExecution inside a hook (src/checkpoint.cc).
    static {
      callInitHooks = function(asyncId, type, triggerAsyncId, resource) {
        const hooks = initHooks;
        const outerHook = hookFields[kRunningHook];
        hookFields[kRunningHook] = kInit;
        hookFields[kHookCallDepth]++;
        fields[kHookCallsOpen]++;
        try {
          for (let i = 0; i < hooks.length; i++) {
            try {
              hooks[i].#init(asyncId, type, triggerAsyncId, resource);
            } catch (err) {
              if (hookFields[kHookCallDepth] === 1 &&
                  isProgramStackOverflow(err)) {
                throw err;
              }
              reportHookError('init', err);
            }
          }
        } finally {
          fields[kHookCallsOpen]--;
          hookFields[kHookCallDepth]--;
          hookFields[kRunningHook] = outerHook;
        }
      };

      callBeforeHooks = function(asyncId) {
        const hooks = beforeHooks;
        const outerHook = hookFields[kRunningHook];
        hookFields[kRunningHook] = kBefore;
        hookFields[kHookCallDepth]++;
        fields[kHookCallsOpen]++;
        try {
          for (let i = 0; i < hooks.length; i++) {
            try {
              hooks[i].#before(asyncId);
            } catch (err) {
              if (hookFields[kHookCallDepth] === 1 &&
                  isProgramStackOverflow(err)) {
                throw err;
              }
              reportHookError('before', err);
            }
          }
        } finally {
          fields[kHookCallsOpen]--;
          hookFields[kHookCallDepth]--;
          hookFields[kRunningHook] = outerHook;
        }
      };

      callAfterHooks = function(asyncId) {
        const hooks = afterHooks;
        const outerHook = hookFields[kRunningHook];
        hookFields[kRunningHook] = kAfter;
        hookFields[kHookCallDepth]++;
        fields[kHookCallsOpen]++;
        try {
          for (let i = 0; i < hooks.length; i++) {
            try {
              hooks[i].#after(asyncId);
            } catch (err) {
              if (hookFields[kHookCallDepth] === 1 &&
                  isProgramStackOverflow(err)) {
                throw err;
              }
              reportHookError('after', err);
            }
          }
        } finally {
          fields[kHookCallsOpen]--;
          hookFields[kHookCallDepth]--;
          hookFields[kRunningHook] = outerHook;
        }
      };

      callDestroyHooks = function(asyncId) {
        const hooks = destroyHooks;
        const outerHook = hookFields[kRunningHook];
        hookFields[kRunningHook] = kDestroy;
        hookFields[kHookCallDepth]++;
        fields[kHookCallsOpen]++;
        try {
          for (let i = 0; i < hooks.length; i++) {
            try {
              hooks[i].#destroy(asyncId);
            } catch (err) {
              if (hookFields[kHookCallDepth] === 1 &&
                  isProgramStackOverflow(err)) {
                throw err;
              }
              reportHookError('destroy', err);
            }
          }
        } finally {
          fields[kHookCallsOpen]--;
          hookFields[kHookCallDepth]--;
          hookFields[kRunningHook] = outerHook;
        }
      };

      callPromiseResolveHooks = function(asyncId) {
        const hooks = promiseResolveHooks;
        const outerHook = hookFields[kRunningHook];
        hookFields[kRunningHook] = kPromiseResolve;
        hookFields[kHookCallDepth]++;
        fields[kHookCallsOpen]++;
        try {
          for (let i = 0; i < hooks.length; i++) {
            try {
              hooks[i].#promiseResolve(asyncId);
            } catch (err) {
              if (hookFields[kHookCallDepth] === 1 &&
                  isProgramStackOverflow(err)) {
                throw err;
              }
              reportHookError('promiseResolve', err);
            }
          }
        } finally {
          fields[kHookCallsOpen]--;
          hookFields[kHookCallDepth]--;
          hookFields[kRunningHook] = outerHook;
        }
      };
    }
  };
}

// Plain assignments only (nothing here can throw).
function setHookLists(init, before, after, destroy, resolve) {
  initHooks = init;
  beforeHooks = before;
  afterHooks = after;
  destroyHooks = destroy;
  promiseResolveHooks = resolve;
}

// A copy of `list` with `hook` added (delta > 0) or removed.
function withHook(list, hook, delta) {
  let count = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] !== hook) count++;
  }
  const copy = newList(delta > 0 ? count + 1 : count);
  let k = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] !== hook) copy[k++] = list[i];
  }
  if (delta > 0) copy[k] = hook;
  return copy;
}

// As in Node.js: any value is accepted as the callbacks (a function, a
// number: no callbacks); a present callback must be a function.
function hookCallback(callbacks, kind) {
  const fn = callbacks[kind];
  if (fn !== undefined && typeof fn !== 'function') {
    throw makeError(TypeErrorCtor, 'ERR_ASYNC_CALLBACK',
                    `hook.${kind} must be a function`);
  }
  return fn;
}

function emitInit(asyncId, type, triggerAsyncId, resource) {
  if (hookFields[kInit] > 0) {
    callInitHooks(asyncId, type, triggerAsyncId, resource);
  }
}

function emitBefore(asyncId) {
  if (hookFields[kBefore] > 0) callBeforeHooks(asyncId);
}

function emitAfter(asyncId) {
  if (hookFields[kAfter] > 0) callAfterHooks(asyncId);
}

function emitDestroyNow(asyncId) {
  if (hookFields[kDestroy] > 0) callDestroyHooks(asyncId);
}

function emitPromiseResolve(asyncId) {
  if (hookFields[kPromiseResolve] > 0) callPromiseResolveHooks(asyncId);
}

// Called by C++ with a batch of ids (from the posted destroy task).
function emitDestroyBatch(ids) {
  for (let i = 0; i < ids.length; i++) emitDestroyNow(ids[i]);
}

function createHook(callbacks) {
  if (callbacks === null || callbacks === undefined) {
    // Node.js destructures its argument.
    throw new TypeErrorCtor(`Cannot destructure property 'init' of '${
        callbacks === null ? 'object null' : 'undefined'}' as it is ${
        callbacks}.`);
  }
  if (AsyncHook === undefined) defineAsyncHook();
  return new AsyncHook(callbacks);
}

// After TerminateExecution (see internal/termination): the emitters'
// `finally` blocks never ran.
function resetAfterTermination() {
  hookFields[kHookCallDepth] = 0;
}

module.exports = {
  __proto__: null,
  createHook,
  emitInit,
  emitBefore,
  emitAfter,
  emitPromiseResolve,
  emitDestroyBatch,
  setRefreshPromiseHooks,
  resetAfterTermination,
};
