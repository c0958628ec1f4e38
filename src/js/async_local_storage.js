// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage, on the AsyncContext machinery (async_context.js): the
// instance is its own key in frames, `run` is runWith, `getStore` is
// lookup, `snapshot` and `bind` are AsyncResource's.

// Set once an AsyncLocalStorage exists in this context (enterWith is the
// one API that changes the frame without restoring it): from then on a
// callback queued with queueMicrotask at the root runs through the runner
// too, so that an enterWith inside it cannot leak into the next microtask
// (queue_microtask.js). The decision has to be made when a callback is
// queued, before anyone can have called enterWith in an earlier one.
let enterWithPossible = false;

class AsyncLocalStorage {
  #enabled = true;
  #defaultValue;
  #name;

  constructor(options) {
    validateObjectOrUndefined(options, 'options');
    enterWithPossible = true;
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
    frameDirty = true;
  }

  // As in Node.js, the callback is called with `this` null (globalThis in a
  // sloppy-mode function). The body is runWith's (async_context.js), written
  // out: one call level less lets TurboFan inline all of it into the caller's
  // loop (within its cumulative inlining budget), about 200 instructions
  // less per run. Keep the two identical.
  run(store, callback, ...args) {
    if (typeof callback !== 'function') {
      throw invalidArgType('callback', 'function', callback);
    }
    this.#enabled = true;
    const frame = newNode(this, store, undefined);
    if (contextFields[kRepairActive] !== 1) activateRepairOnce();
    const previous = swapFrame(frame);
    try {
      if (previous !== undefined && previous !== ROOT) {
        frame.next = frameWithout(previous, this);
      }
      return ReflectApply(callback, null, args);
    } finally {
      try { setFrame(previous); } catch { restoreFrame(previous); }
    }
  }

  // As in Node.js 24: the store is undefined inside (even with a
  // defaultValue), and in async work started there.
  exit(callback, ...args) {
    if (typeof callback !== 'function') {
      throw invalidArgType('callback', 'function', callback);
    }
    return runWith(this, undefined, callback, null, args);
  }
}

function runWithArgs(fn, ...args) {
  return ReflectApply(fn, undefined, args);
}
