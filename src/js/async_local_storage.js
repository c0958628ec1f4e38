// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage, on the AsyncContext machinery (internal/async_context):
// the instance is its own key in frames, `run` is the run method that
// AsyncContext.Variable has too (makeRunMethod), `getStore` is lookup,
// `snapshot` and `bind` are AsyncResource's.

'use strict';

const { ReflectApply, defineValue, newList } = primordials;
const {
  frameWith,
  frameWithout,
  getFrame,
  setFrame,
  slotFrame,
} = require('internal/frames');
const {
  invalidArgType,
  validateObjectOrUndefined,
} = require('internal/errors');
const { lookup, makeRunMethod } = require('internal/async_context');
const { activateRepairOnce } = require('internal/promise_hooks');
const { markFrameDirty } = require('internal/thenable_repair');
const { AsyncResource } = require('internal/async_resource');
const { allowEnterWith } = require('internal/queue_microtask');

let prepareRun;  // the class's part of run (see makeRunMethod)
let enterStorage;  // for internal/diagnostics_channel (below)

class AsyncLocalStorage {
  #enabled = true;
  #defaultValue;
  #name;

  constructor(options) {
    validateObjectOrUndefined(options, 'options');
    // enterWith is possible from now on (see internal/queue_microtask).
    allowEnterWith();
    this.#defaultValue =
        options === undefined ? undefined : options.defaultValue;
    const name = options === undefined ? undefined : options.name;
    this.#name = name === undefined ? '' : `${name}`;
  }

  get name() {
    return this.#name;
  }

  static bind(fn) {
    return AsyncResource.bind(fn);
  }

  static snapshot() {
    return AsyncResource.bind(runWithArgs, 'AsyncLocalStorageSnapshot');
  }

  // Exits every context of this instance that is current here: the store is
  // removed from the current frame, so work created from now on does not
  // see it, and getStore() gives the default value until the next run or
  // enterWith (Node.js 24). Frames captured before the call keep the store
  // (frames are immutable; Node.js 24 deletes the key from the shared frame
  // in place).
  disable() {
    this.#enabled = false;
    const frame = getFrame();
    const rest = frameWithout(frame, this);
    if (rest !== frame) setFrame(slotFrame(rest));
  }

  getStore() {
    if (!this.#enabled) return this.#defaultValue;
    return lookup(this, this.#defaultValue);
  }

  enterWith(store) {
    this.#enabled = true;
    const frame = frameWith(getFrame(), this, store);
    activateRepairOnce();
    setFrame(frame);
    markFrameDirty();
  }

  // As in Node.js 24: the store is undefined inside (even with a
  // defaultValue), and in async work started there.
  exit(callback, ...args) {
    const list = newList(args.length + 2);
    list[0] = undefined;
    list[1] = callback;
    for (let i = 0; i < args.length; i++) list[i + 2] = args[i];
    return ReflectApply(runForExit, this, list);
  }

  static {
    prepareRun = (storage, callback) => {
      validateCallback(storage, callback);
      storage.#enabled = true;
    };
    // What run(value, ...) does to the frame, for runStores: `frame` with
    // `storage` mapped to `value` (and the instance enabled), or undefined
    // when `storage` is not an AsyncLocalStorage.
    enterStorage = (storage, frame, value) => {
      if (((typeof storage !== 'object' || storage === null) &&
           typeof storage !== 'function') ||
          !(#enabled in storage)) {
        return undefined;
      }
      storage.#enabled = true;
      return frameWith(frame, storage, value);
    };
  }
}

// As in Node.js, the callback is called with `this` null (globalThis in a
// sloppy-mode function).
const storageRun = makeRunMethod(prepareRun, null);
defineValue(AsyncLocalStorage.prototype, 'run', storageRun, true, false);
// The original getStore, before the class can reach user code (the brand
// check of ContextKey::FromJavaScript, through internal/install).
const storageGetStore = AsyncLocalStorage.prototype.getStore;
// exit: run with the store undefined, without enabling the instance.
const runForExit = makeRunMethod(validateCallback, null);
function validateCallback(storage, callback) {
  if (typeof callback !== 'function') {
    throw invalidArgType('callback', 'function', callback);
  }
}

function runWithArgs(fn, ...args) {
  return ReflectApply(fn, undefined, args);
}

module.exports = {
  __proto__: null,
  AsyncLocalStorage,
  enterStorage,
  storageRun,
  storageGetStore,
};
