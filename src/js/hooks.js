// Copyright 2026 the asyncctx authors. All rights reserved.
//
// createHook and the hook emitters. hookFields (one Float64Array per
// context, shared with C++) counts the enabled hooks by kind; the indices
// come from C++ at install. Hook lists are copied on write, so enabling or
// disabling a hook while hooks run takes effect at the next event, as
// Node.js documents.

'use strict';

const { TypeErrorCtor, newList } = primordials;
const { constants, hookFields, reportHookError } = binding;
const {
  kInit,
  kBefore,
  kAfter,
  kDestroy,
  kPromiseResolve,
  kTotals,
} = constants;
const { makeError } = require('internal/errors');

// internal/promise_hooks installs V8's promise hooks from the counts above
// whenever they change. It requires this module (for the emitters), so it
// hands its refresh function in when it loads instead of being required.
let refreshPromiseHooks;
function setRefreshPromiseHooks(refresh) {
  refreshPromiseHooks = refresh;
}

// One list per kind, holding the enabled hooks that have that callback.
// Lists are replaced, never mutated, while hooks may be running.
let initHooks = newList(0);
let beforeHooks = newList(0);
let afterHooks = newList(0);
let destroyHooks = newList(0);
let promiseResolveHooks = newList(0);
let callInitHooks;
let callBeforeHooks;
let callAfterHooks;
let callDestroyHooks;
let callPromiseResolveHooks;

class AsyncHook {
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
  // or an allocation failure can still throw), then committed with plain
  // assignments only, so the lists and the counts always agree.
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
    initHooks = nextInit;
    beforeHooks = nextBefore;
    afterHooks = nextAfter;
    destroyHooks = nextDestroy;
    promiseResolveHooks = nextResolve;
    if (hasInit) hookFields[kInit] += delta;
    if (hasBefore) hookFields[kBefore] += delta;
    if (hasAfter) hookFields[kAfter] += delta;
    if (hasDestroy) hookFields[kDestroy] += delta;
    if (hasResolve) hookFields[kPromiseResolve] += delta;
    hookFields[kTotals] += delta;
    this.#enabled = delta > 0;
    refreshPromiseHooks();
  }

  // The emitters live in a static block: they read the private callbacks,
  // and they are not reachable from user code (not even through
  // hook.constructor).
  static {
    callInitHooks = function(asyncId, type, triggerAsyncId, resource) {
      const hooks = initHooks;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i].#init(asyncId, type, triggerAsyncId, resource);
        } catch (err) {
          reportHookError('init', err);
        }
      }
    };

    callBeforeHooks = function(asyncId) {
      const hooks = beforeHooks;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i].#before(asyncId);
        } catch (err) {
          reportHookError('before', err);
        }
      }
    };

    callAfterHooks = function(asyncId) {
      const hooks = afterHooks;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i].#after(asyncId);
        } catch (err) {
          reportHookError('after', err);
        }
      }
    };

    callDestroyHooks = function(asyncId) {
      const hooks = destroyHooks;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i].#destroy(asyncId);
        } catch (err) {
          reportHookError('destroy', err);
        }
      }
    };

    callPromiseResolveHooks = function(asyncId) {
      const hooks = promiseResolveHooks;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i].#promiseResolve(asyncId);
        } catch (err) {
          reportHookError('promiseResolve', err);
        }
      }
    };
  }
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
  return new AsyncHook(callbacks);
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
};
