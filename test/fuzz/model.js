// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The reference model for the differential fuzzer (test/fuzz/README.md).
//
// A small, independent implementation of the semantics in docs/semantics.md,
// written for clarity rather than speed and sharing no code with
// src/js/asyncctx.js. It defines FUZZ_RUNTIME for test/fuzz/driver.js; a
// generated program receives the model's AsyncLocalStorage, AsyncResource,
// AsyncContext, queueMicrotask, timers and asyncHooks instead of the real ones.
//
// What the model does NOT get from the engine: it never relies on V8 to carry
// a context. The current frame is a plain variable, `current`. Every place
// where the real implementation (or V8) captures a frame is explicit here:
//
//   * run/exit/enterWith/Snapshot/AsyncResource     ordinary code below
//   * timers, queueMicrotask, promise reactions     wrappers capture at
//                                                   schedule time
//   * await                                         the generator renders
//       `await X` in the model version of a program as
//           { const $s = M.save(); try { await M.aw(X); } finally { M.resume($s); } }
//       so the continuation re-enters the frame of the await point
//   * thenable jobs                                 M.thenable objects enter
//       the frame their consumer assigned (M.aw, M.ret, M.each, the resolve
//       function of M.newPromise, the return value of an M.then callback)
//
// Scheduling (which job runs when) is the engine's own: the model adds no
// promise ticks, so the real program and its model version interleave their
// jobs identically and their traces can be compared line by line.
//
// Rules modelled (docs/semantics.md):
//   * a frame is an immutable map key -> value; undefined (here: ROOT) is the
//     root frame; a present key wins over defaultValue, also when its value
//     is undefined
//   * run/exit/Snapshot.run/Snapshot.wrap/runInAsyncScope restore the exact
//     previous frame, also on throw; enterWith replaces the current frame
//   * exit(fn) is run(undefined, fn); disable() removes the store from the
//     current frame, and getStore() gives the defaultValue until the next
//     run/enterWith of the instance
//   * a promise reaction runs in the frame of its then() call
//   * await resumes in the frame of the await point
//   * a thenable job runs in the frame of the promise it resolves
//     (THENABLE_RULE 'creation', what the repair on V8 10.2 does) or in the
//     frame current when the resolve happened ('resolve', TC39 and V8 >= 12);
//     the generator only produces programs where the two differ when asked
//     to (--ambiguous-thenables)
//   * a timer/immediate callback runs in the frame of its scheduling; a
//     macrotask always ends in the root frame
//   * queueMicrotask runs its callback in the caller's frame
//   * after a promise job (reaction, await continuation) the frame is the root
//   * async ids: the host's script runs with executionAsyncId 1 and
//     triggerAsyncId 0; each resource (timer, immediate, AsyncResource, the
//     resource behind AsyncResource.bind / AsyncLocalStorage.bind /
//     AsyncLocalStorage.snapshot, and a queueMicrotask callback while a hook
//     is enabled) takes the next id; a callback of a resource runs with the
//     resource's ids; promise jobs run with the ids of the host's checkpoint
//     (1, 0) while no hook is enabled. Ids are not compared in programs that
//     enable a hook (promises then take ids too, an engine detail).

'use strict';

(function(global) {
  // Host primitives, captured before a program can touch anything.
  const hostSetTimeout = global.setTimeout;
  const hostClearTimeout = global.clearTimeout;
  const hostSetImmediate = global.setImmediate;
  const hostClearImmediate = global.clearImmediate;
  const resolvedPromise = Promise.resolve();
  const promiseThen = Promise.prototype.then;
  const promiseFinally = Promise.prototype.finally;
  const log = console.log.bind(console);

  // What the generator calls "the id base": model ids start here, so that
  // a trace shows ids relative to the program's first resource.
  const ID_BASE = 1000000;

  let THENABLE_RULE = 'creation';

  // --- Frames -------------------------------------------------------------
  //
  // A frame is a frozen Map, or ROOT (no key set). Never mutated.

  const ROOT = undefined;

  function frameSet(frame, key, value) {
    const map = new Map(frame === ROOT ? [] : frame);
    map.set(key, value);
    return Object.freeze(map);
  }

  function frameDelete(frame, key) {
    if (frame === ROOT || !frame.has(key)) return frame;
    const map = new Map(frame);
    map.delete(key);
    return map.size === 0 ? ROOT : Object.freeze(map);
  }

  function frameGet(frame, key, fallback) {
    if (frame !== ROOT && frame.has(key)) return frame.get(key);
    return fallback;
  }

  // --- State --------------------------------------------------------------

  let current = ROOT;           // the current frame
  const BASE_IDS = [1, 0];      // the host checkpoint's execution/trigger id
  let idStack = [BASE_IDS];     // top = [executionAsyncId, triggerAsyncId]
  let lastId = ID_BASE - 1;
  let enabledHooks = 0;
  let modelErrors = [];         // misuse of the model by a program

  function top() {
    return idStack[idStack.length - 1];
  }

  function newId() {
    return ++lastId;
  }

  function enterJob(frame) {
    current = frame;
    idStack = [BASE_IDS];
  }

  function leaveJob() {
    current = ROOT;
    idStack = [BASE_IDS];
  }

  // --- Errors (only what the fuzzer checks: class and code) ---------------

  function argTypeError(name) {
    const err = new TypeError(`The "${name}" argument is invalid`);
    err.code = 'ERR_INVALID_ARG_TYPE';
    return err;
  }

  function requireFunction(fn, name) {
    if (typeof fn !== 'function') throw argTypeError(name);
  }

  // --- AsyncLocalStorage --------------------------------------------------

  class AsyncLocalStorage {
    constructor(options) {
      if (options !== undefined &&
          (options === null || typeof options !== 'object' ||
           Array.isArray(options))) {
        throw argTypeError('options');
      }
      this._key = Symbol('als');
      this._enabled = true;
      this._defaultValue = options === undefined ? undefined :
                                                   options.defaultValue;
    }

    getStore() {
      if (!this._enabled) return this._defaultValue;
      return frameGet(current, this._key, this._defaultValue);
    }

    run(store, callback, ...args) {
      requireFunction(callback, 'callback');
      this._enabled = true;
      const saved = current;
      current = frameSet(saved, this._key, store);
      try {
        return callback(...args);
      } finally {
        current = saved;
      }
    }

    // run(undefined, callback): the store is undefined inside, whatever
    // the defaultValue (Node.js 24).
    exit(callback, ...args) {
      requireFunction(callback, 'callback');
      const saved = current;
      current = frameSet(saved, this._key, undefined);
      try {
        return callback(...args);
      } finally {
        current = saved;
      }
    }

    enterWith(store) {
      this._enabled = true;
      current = frameSet(current, this._key, store);
    }

    // Exits the instance's contexts current here: the store leaves the
    // current frame (work created from now on never sees it), and
    // getStore() gives the defaultValue until the next run/enterWith.
    disable() {
      this._enabled = false;
      current = frameDelete(current, this._key);
    }

    static bind(fn) {
      return AsyncResource.bind(fn);
    }

    static snapshot() {
      const resource = new AsyncResource('AsyncLocalStorageSnapshot');
      return (fn, ...args) => resource.runInAsyncScope(fn, undefined, ...args);
    }
  }

  // --- AsyncResource ------------------------------------------------------

  class AsyncResource {
    constructor(type, options) {
      if (typeof type !== 'string') throw argTypeError('type');
      let trigger = top()[0];
      if (typeof options === 'number') {
        trigger = options;
      } else if (options !== undefined && options !== null &&
                 options.triggerAsyncId !== undefined) {
        trigger = options.triggerAsyncId;
      }
      if (!Number.isSafeInteger(trigger) || trigger < -1) {
        const err = new RangeError('Invalid triggerAsyncId value');
        err.code = 'ERR_INVALID_ASYNC_ID';
        throw err;
      }
      this._frame = current;
      this._id = newId();
      this._trigger = trigger;
    }

    runInAsyncScope(fn, thisArg, ...args) {
      requireFunction(fn, 'fn');
      const savedFrame = current;
      const savedIds = idStack;
      idStack = idStack.concat([[this._id, this._trigger]]);
      current = this._frame;
      try {
        return fn.apply(thisArg, args);
      } finally {
        current = savedFrame;
        idStack = savedIds;
      }
    }

    bind(fn, thisArg) {
      requireFunction(fn, 'fn');
      const resource = this;
      return function(...args) {
        return resource.runInAsyncScope(
            fn, thisArg === undefined ? this : thisArg, ...args);
      };
    }

    static bind(fn, type, thisArg) {
      requireFunction(fn, 'fn');
      return new AsyncResource(type || fn.name || 'bound-anonymous-fn')
          .bind(fn, thisArg);
    }

    asyncId() {
      return this._id;
    }

    triggerAsyncId() {
      return this._trigger;
    }

    emitDestroy() {
      return this;
    }
  }

  // --- AsyncContext -------------------------------------------------------

  class Variable {
    constructor(options) {
      if (options !== undefined &&
          (options === null || typeof options !== 'object' ||
           Array.isArray(options))) {
        throw argTypeError('options');
      }
      this._key = Symbol('variable');
      this._defaultValue = options === undefined ? undefined :
                                                   options.defaultValue;
    }

    get() {
      return frameGet(current, this._key, this._defaultValue);
    }

    run(value, fn, ...args) {
      requireFunction(fn, 'fn');
      const saved = current;
      current = frameSet(saved, this._key, value);
      try {
        return fn(...args);
      } finally {
        current = saved;
      }
    }
  }

  class Snapshot {
    constructor() {
      this._frame = current;
    }

    run(fn, ...args) {
      requireFunction(fn, 'fn');
      const saved = current;
      current = this._frame;
      try {
        return fn(...args);
      } finally {
        current = saved;
      }
    }

    static wrap(fn) {
      requireFunction(fn, 'fn');
      const frame = current;
      return function(...args) {
        const saved = current;
        current = frame;
        try {
          return fn.apply(this, args);
        } finally {
          current = saved;
        }
      };
    }
  }

  const AsyncContext = Object.freeze({Variable, Snapshot});

  // --- async_hooks --------------------------------------------------------

  // The model emits no hook events: its hooks never call their callbacks.
  // (The hook-driven timer calls of the hostile mode, gen.py's
  // HOOK_TIMER_CALLS, are calls Node.js makes no observable difference
  // for, so the model's trace is the same without them.)
  function createHook(callbacks) {
    if (callbacks === null || typeof callbacks !== 'object') {
      throw argTypeError('options');
    }
    let enabled = false;
    return {
      enable() {
        if (!enabled) {
          enabled = true;
          enabledHooks++;
        }
        return this;
      },
      disable() {
        if (enabled) {
          enabled = false;
          enabledHooks--;
        }
        return this;
      },
    };
  }

  const asyncHooks = Object.freeze({
    createHook,
    executionAsyncId: () => top()[0],
    triggerAsyncId: () => top()[1],
    AsyncLocalStorage,
    AsyncResource,
  });

  // --- Host scheduling ----------------------------------------------------

  // A macrotask: starts in the frame (and with the ids) of its scheduling;
  // ends in the root frame whatever the callback did.
  function macrotask(schedule, callback, args) {
    requireFunction(callback, 'callback');
    const id = newId();
    const trigger = top()[0];
    const frame = current;
    return schedule(() => {
      current = frame;
      idStack = [BASE_IDS, [id, trigger]];
      try {
        callback(...args);
      } finally {
        leaveJob();
      }
    });
  }

  function setTimeout(callback, ms, ...args) {
    return macrotask((fn) => hostSetTimeout(fn, ms), callback, args);
  }

  function setImmediate(callback, ...args) {
    return macrotask((fn) => hostSetImmediate(fn), callback, args);
  }

  // One microtask, in the engine's queue: a reaction on a settled promise.
  function enqueue(job) {
    promiseThen.call(resolvedPromise, job);
  }

  function reportUncaught(err) {
    modelErrors.push('uncaught exception in a microtask: ' + err);
  }

  function queueMicrotask(callback) {
    requireFunction(callback, 'callback');
    const frame = current;
    if (enabledHooks > 0) {
      const id = newId();
      const trigger = top()[0];
      enqueue(() => {
        enterJob(frame);
        idStack = [BASE_IDS, [id, trigger]];
        try {
          callback();
        } catch (err) {
          reportUncaught(err);
        } finally {
          leaveJob();
        }
      });
    } else {
      enqueue(() => {
        enterJob(frame);
        try {
          callback();
        } catch (err) {
          reportUncaught(err);
        } finally {
          leaveJob();
        }
      });
    }
  }

  // --- Helpers the model rendering of a program calls (M.*) ---------------

  const UNASSIGNED = Symbol('unassigned');
  const isModelThenable = (value) =>
      value !== null && typeof value === 'object' && value._modelThenable;

  // Gives a thenable the frame its job will run in, once, where it is
  // consumed (resolved into a promise).
  function assign(value, frame) {
    if (isModelThenable(value) && value._frame === UNASSIGNED) {
      value._frame = frame;
    }
    return value;
  }

  // The frame a thenable job gets when `promiseFrame` is the frame the
  // promise being resolved was created in.
  function thenableFrame(promiseFrame) {
    return THENABLE_RULE === 'creation' ? promiseFrame : current;
  }

  // A resolve function for a promise created in `promiseFrame`.
  function wrapResolve(resolve, promiseFrame) {
    return (value) => {
      assign(value, thenableFrame(promiseFrame));
      return resolve(value);
    };
  }

  const M = Object.freeze({
    // The frame of the current call (an async function's call frame).
    save() {
      return current;
    },
    // `await X` renders as
    //   const $a = M.awaiter(); try { await $a.on(X); } finally { $a.resume(); }
    // on() runs once X has been evaluated, right before the await: that is
    // the frame the continuation resumes in. The promise await makes for a
    // thenable operand is created here and now.
    awaiter() {
      let frame = ROOT;
      return {
        on(value) {
          frame = current;
          return assign(value, current);
        },
        resume() {
          enterJob(frame);
        },
      };
    },
    // `return X` from an async function whose call frame is `callFrame`.
    ret(callFrame, value) {
      return assign(value, thenableFrame(callFrame));
    },
    // Elements of Promise.all([...]) / Promise.resolve(x): resolved here and
    // now.
    each(values) {
      for (const value of values) assign(value, current);
      return values;
    },
    // `p.then(f, r)`: the reaction runs in the frame of this call.
    then(promise, onFulfilled, onRejected) {
      const frame = current;
      const wrap = (fn) => typeof fn !== 'function' ? fn : (value) => {
        enterJob(frame);
        try {
          const result = fn(value);
          return assign(result, thenableFrame(frame));
        } finally {
          leaveJob();
        }
      };
      return promiseThen.call(promise, wrap(onFulfilled), wrap(onRejected));
    },
    // `p.finally(f)`: f runs in the frame of this call.
    fin(promise, onFinally) {
      const frame = current;
      return promiseFinally.call(promise, () => {
        enterJob(frame);
        try {
          return onFinally();
        } finally {
          leaveJob();
        }
      });
    },
    // `new Promise(executor)`.
    newPromise(executor) {
      const frame = current;
      return new Promise((resolve, reject) => {
        executor(wrapResolve(resolve, frame), reject);
      });
    },
    // `{then(resolve, reject) {...}}`: the body runs in the frame assigned by
    // its consumer.
    thenable(body) {
      return {
        _modelThenable: true,
        _frame: UNASSIGNED,
        then(resolve, reject) {
          const frame = this._frame;
          if (frame === UNASSIGNED) {
            modelErrors.push('a thenable was resolved without a consumer');
          }
          enterJob(frame === UNASSIGNED ? ROOT : frame);
          try {
            return body(wrapResolve(resolve, frame), reject);
          } finally {
            leaveJob();
          }
        },
      };
    },
  });

  // --- FUZZ_RUNTIME (see driver.js) ---------------------------------------

  function formatId(id) {
    return id >= ID_BASE ? 'r' + (id - ID_BASE) : String(id);
  }

  global.FUZZ_RUNTIME = {
    name: 'model',
    configure(options) {
      if (options.thenableRule) THENABLE_RULE = options.thenableRule;
    },
    // The environment a program function receives.
    environment(lines, hooked) {
      const env = {
        AsyncLocalStorage,
        AsyncResource,
        AsyncContext,
        asyncHooks,
        queueMicrotask,
        setTimeout,
        setImmediate,
        clearTimeout: hostClearTimeout,
        clearImmediate: hostClearImmediate,
        M,
        K: [],
        S: [],
        V: [],
        hook: null,
        hooked,
        id: formatId,
        ids: () => formatId(top()[0]) + ' ' + formatId(top()[1]),
        lines,
      };
      return env;
    },
    // Starts a program: its body is the callback of the program's first
    // timer (id base + 0), scheduled from the host's top level.
    start(env, body) {
      current = ROOT;
      idStack = [BASE_IDS];
      lastId = ID_BASE - 1;
      modelErrors = [];
      setTimeout(() => body(env), 0);
    },
    finish(env) {
      if (env.hook) env.hook.disable();
      enabledHooks = 0;
      for (const message of modelErrors) env.lines.push('!model ' + message);
    },
    onIdle(fn) {
      if (typeof process === 'object' && process && process.on) {
        process.on('beforeExit', fn);
      } else {
        global.addEventListener('beforeunload', fn);
      }
    },
    print: log,
  };
})(globalThis);
