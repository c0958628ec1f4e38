// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage, on the AsyncContext machinery (internal/async_context):
// the instance is its own key in frames, `run` is the run method that
// AsyncContext.Variable has too (makeRunMethod), `getStore` is lookup,
// `snapshot` and `bind` are AsyncResource's.

'use strict';

const { ReflectApply, SymbolDispose, defineValue, newList } = primordials;
const {
  ensureKeyId,
  frameLookup,
  frameWith,
  frameWithout,
  getFrame,
  kMissing,
  restoreFrame,
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
let isStorage;  // (value) => true for an AsyncLocalStorage
let enable;  // (storage) => marks the instance enabled, as run does
let defaultValueOf;  // (storage) => its defaultValue

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
    ensureKeyId(this);
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
    const rest = frameWithout(frame, this, this.#defaultValue);
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

  // A disposable (Node.js 24.22, for `using`): enters `store` as enterWith
  // does, and its dispose puts back the frame that was current here (see
  // RunScope below).
  withScope(store) {
    return new RunScope(this, store);
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
    isStorage = (value) =>
      ((typeof value === 'object' && value !== null) ||
       typeof value === 'function') &&
      #enabled in value;
    defaultValueOf = (storage) => storage.#defaultValue;
    enable = (storage) => {
      storage.#enabled = true;
    };
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

// What withScope returns (the class is Node's: `RunScope`, with `dispose()`
// and `[Symbol.dispose]()`). The constructor enters `store` like enterWith;
// the first dispose undoes it, later ones do nothing:
//
// * when the frame the scope entered is still current (the end of a `using`
//   block, also after an `await` inside it), the exact frame object that was
//   current before withScope is put back, as `run` does on return (no new
//   frame, and the root stays the root);
// * otherwise (disposed out of order, after another enterWith, or in
//   another context), only this storage goes back to the value it had
//   before withScope (absent if it was), in whatever frame is current. The
//   other keys of that frame stay: a scope disposed in another context
//   must not bring the rest of its own context there. Node.js applies this
//   rule to every dispose, so both give the same stores.
//
// What withScope cannot prevent (V8 gives JavaScript no hook where an
// async function suspends): inside an async function, the store entered
// before the first `await` stays current in the caller when the call
// returns, as after enterWith, until the caller's job or host callback
// ends (docs/semantics.md).
class RunScope {
  #storage;
  #previous;
  #frame;
  #disposed = false;

  constructor(storage, store) {
    if (!isStorage(storage)) {
      throw invalidArgType('storage', 'AsyncLocalStorage', storage);
    }
    enable(storage);
    const previous = getFrame();
    const frame = frameWith(previous, storage, store);
    this.#storage = storage;
    this.#previous = previous;
    this.#frame = frame;
    activateRepairOnce();
    setFrame(frame);
    markFrameDirty();
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    const current = getFrame();
    const previous = this.#previous;
    if (current === this.#frame) {
      // A dispose at the end of a `finally` must not fail either (see
      // internal/frames on restores).
      const frame = slotFrame(previous);
      try { setFrame(frame); } catch { restoreFrame(frame); }
      return;
    }
    const storage = this.#storage;
    const value = frameLookup(previous, storage);
    const next = value === kMissing ?
        frameWithout(current, storage, defaultValueOf(storage)) :
        frameWith(current, storage, value);
    if (next === current) return;
    setFrame(slotFrame(next));
    markFrameDirty();
  }

  [SymbolDispose]() {
    this.dispose();
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
