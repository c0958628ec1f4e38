// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The hostile-realm mode of the differential fuzzer (tools/fuzz --pollute).
//
// Loaded on the shell's side after real.js (which captured the installed
// API, as a host's own code would) and before the programs. It plays a
// hostile dependency sharing the realm: it pollutes builtins the way a
// hostile dependency would, chosen at random per batch from
// globalThis.FUZZ_POLLUTE_SEED, so that asyncctx must keep working and keep
// every context private while the programs run.
//
// Every pollution is transparent to the programs and the driver (they never
// rely on what is changed: no holey arrays, no property descriptors, no
// global constructors called, no unknown properties of promises), so the
// traces must still equal the oracle's. Each pollution also watches: when
// the library hands it something that reveals a context (an
// AsyncLocalStorage or AsyncContext.Variable instance, a store value of the
// generator's shape, or an array holding either), or reads a global it
// should have captured at install, it records a line. The driver appends
// those lines to the program's trace as `!polluted ...`, which the oracle
// never prints: a difference, so a failure.

'use strict';

(function(global) {
  const seed = global.FUZZ_POLLUTE_SEED | 0;
  const ALS = global.AsyncLocalStorage;
  const Variable = global.AsyncContext.Variable;
  const ReflectApply = Reflect.apply;
  const ReflectGet = Reflect.get;
  const ReflectHas = Reflect.has;
  const ReflectConstruct = Reflect.construct;
  const ReflectDefineProperty = Reflect.defineProperty;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ArrayIsArray = Array.isArray;
  const RegExpTest = RegExp.prototype.test;
  const storeShape = /^(v|d|dv)[0-9]+$/;
  // Plain strings, not an array: index stores would meet the accessors.
  let report = '';
  let recorded = 0;
  const wellKnownSymbols = new Set();
  for (const name of Reflect.ownKeys(Symbol)) {
    if (typeof Symbol[name] === 'symbol') wellKnownSymbols.add(Symbol[name]);
  }
  const SetHas = Set.prototype.has;

  // A tiny deterministic generator (mulberry32) for the choice of attacks.
  let state = (seed * 2654435761) >>> 0;
  function random() {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  function isKey(value) {
    return value instanceof ALS || value instanceof Variable;
  }

  function reveals(value, depth = 0) {
    if (typeof value === 'string') return ReflectApply(RegExpTest, storeShape, [value]);
    if (value === null || typeof value !== 'object') return false;
    if (isKey(value)) return true;
    if (depth < 2 && ArrayIsArray(value)) {
      const n = value.length;
      for (let i = 0; i < n && i < 64; i++) {
        if (reveals(value[i], depth + 1)) return true;
      }
    }
    return false;
  }

  function record(what) {
    if (recorded++ < 20) report += `!polluted ${what}\n`;
  }

  const attacks = [];

  // Accessors on Array.prototype indices: frames, hook
  // lists and saved frames built by index stores would pass through them.
  attacks.push(function arrayIndexAccessors() {
    for (let i = 0; i < 16; i++) {
      ObjectDefineProperty(Array.prototype, i, {
        __proto__: null,
        configurable: true,
        enumerable: false,
        get() {
          return undefined;
        },
        set(value) {
          if (isKey(value) || reveals(this) || reveals(value)) {
            record(`Array.prototype[${i}] setter received a context`);
          }
          ReflectDefineProperty(this, i, {
            __proto__: null,
            value,
            writable: true,
            enumerable: true,
            configurable: true,
          });
        },
      });
    }
  });

  // Descriptor fields on Object.prototype: an ordinary
  // descriptor object inherits them.
  attacks.push(function descriptorFields() {
    for (const name of ['get', 'set', 'value', 'writable', 'enumerable',
                        'configurable']) {
      ObjectDefineProperty(Object.prototype, name, {
        __proto__: null,
        configurable: true,
        enumerable: false,
        get() {
          record(`Object.prototype.${name} read (a descriptor without ` +
                 '__proto__: null?)');
          return undefined;
        },
        set(value) {
          ReflectDefineProperty(this, name, {
            __proto__: null,
            value,
            writable: true,
            enumerable: true,
            configurable: true,
          });
        },
      });
    }
  });

  // A Proxy between Promise.prototype and Object.prototype: per-promise
  // state stored or read with ordinary property access passes through it.
  attacks.push(function promiseChainProxy() {
    const objectPrototype = ObjectGetPrototypeOf(Promise.prototype);
    const proxy = new Proxy(objectPrototype, {
      __proto__: null,
      get(target, key, receiver) {
        if (!ReflectHas(target, key) &&
            !ReflectApply(SetHas, wellKnownSymbols, [key])) {
          record(`a promise's ${String(key)} was read through the ` +
                 'prototype chain');
        }
        return ReflectGet(target, key, receiver);
      },
      set(target, key, value, receiver) {
        record(`a promise's ${String(key)} was set through the ` +
               'prototype chain' + (reveals(value) ? ' (a context)' : ''));
        return ReflectDefineProperty(receiver, key, {
          __proto__: null,
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      },
    });
    ObjectSetPrototypeOf(Promise.prototype, proxy);
  });

  // Replaced global constructors. The programs and the
  // driver use their static methods only; the library must have captured
  // what it needs at install.
  attacks.push(function replacedGlobals() {
    for (const name of ['Array', 'Object', 'Map', 'Set', 'WeakMap',
                        'FinalizationRegistry', 'Symbol', 'Error',
                        'TypeError', 'RangeError']) {
      const original = global[name];
      global[name] = new Proxy(original, {
        __proto__: null,
        apply(target, thisArg, args) {
          record(`the global ${name} was called` +
                 (reveals(args) ? ' with a context' : ''));
          return ReflectApply(target, thisArg, args);
        },
        construct(target, args, newTarget) {
          if (name !== 'Error') {
            record(`the global ${name} was constructed` +
                   (reveals(args) ? ' with a context' : ''));
          }
          return ReflectConstruct(
              target, args, newTarget === global[name] ? target : newTarget);
        },
      });
    }
    // Reflect is never used by the programs: any read is the library's.
    const reflect = global.Reflect;
    global.Reflect = new Proxy(reflect, {
      __proto__: null,
      get(target, key) {
        record(`Reflect.${String(key)} looked up through the global`);
        return target[key];
      },
    });
  });

  // Function.prototype.call/apply/bind replaced by wrappers that watch their
  // arguments.
  attacks.push(function functionPrototype() {
    const proto = Function.prototype;
    for (const name of ['call', 'apply', 'bind']) {
      const original = proto[name];
      ObjectDefineProperty(proto, name, {
        __proto__: null,
        configurable: true,
        writable: true,
        enumerable: false,
        value: {
          [name](...args) {
            if (reveals(args)) {
              record(`Function.prototype.${name} received a context`);
            }
            return ReflectApply(original, this, args);
          },
        }[name],
      });
    }
  });

  // Promise[Symbol.species] redefined (issue 23.1): every then() of the
  // programs gets its capability from the attacker, a native promise made
  // inside a frame the attacker kept from an earlier call (a frame of
  // another program, or another request of the same one). A reaction's
  // frame is its then()'s, never the capability's: where it is not, the
  // programs' probes see the kept frame's stores, a difference. On V8 10.2
  // a reaction whose then() ran at the root cannot be told from a thenable
  // job (docs/semantics.md, "Promise subclasses and species"): there the
  // capability is made in the frame of the then() call plus a key of the
  // attacker's own, through a subclass whose constructor calls super()
  // inside run(), which exercises the same path without that case.
  attacks.push(function promiseSpecies() {
    const OriginalPromise = Promise;
    const snapshotOf = ALS.snapshot;
    const mine = new ALS();
    // Object.groupBy: V8 >= 11.7 (here 13.6 and 14.6, which enter a
    // reaction's frame themselves).
    const staleFramesVisible = typeof Object.groupBy === 'function';
    let kept;
    let calls = 0;
    const keepAt = 3 + ((random() * 20) | 0);
    function Capability(executor) {
      if (++calls === keepAt) kept = ReflectApply(snapshotOf, ALS, []);
      if (kept === undefined || !staleFramesVisible) {
        return new Subclass(executor);
      }
      let made;
      kept(() => {
        made = new OriginalPromise(executor);
      });
      return made;
    }
    class Subclass extends OriginalPromise {
      constructor(executor) {
        let self;
        mine.run(calls, () => {
          self = super(executor);
        });
        return self;
      }
    }
    // Awaiting a subclass instance would take two more ticks than the
    // model's native promise: instances look native to PromiseResolve.
    ObjectDefineProperty(Subclass.prototype, 'constructor', {
      __proto__: null, value: OriginalPromise, writable: true,
      configurable: true, enumerable: false,
    });
    ObjectDefineProperty(OriginalPromise, Symbol.species, {
      __proto__: null,
      configurable: true,
      get() {
        return Capability;
      },
    });
  });

  // The stack limit (issue 23.2, 23.3, 23.9), before any program runs: the
  // realm's first frame entries (run, Variable.run, enterWith) at every
  // depth near the limit, so that one overflows half-way through switching
  // the thenable repair on; then promises made at the limit with a hook
  // that has only `before` (and one with only `after`) enabled, and
  // runInAsyncScope recursion until the stack ends. Every overflow is
  // caught here; the process must go on, and the programs' thenables keep
  // their context.
  attacks.push(function stackLimit() {
    const Resource = global.AsyncResource;
    const createHook = global.asyncHooks.createHook;
    function atEveryDepth(attempt) {
      let done = false;
      function pad(n) {
        if (n === 0) {
          attempt();
          return;
        }
        pad(n - 1);
      }
      (function deep() {
        try {
          deep();
        } catch {}
        for (let k = 12; k >= 0 && !done; k--) {
          try {
            pad(k);
            done = true;
          } catch {}
        }
      })();
    }
    const variable = new Variable();
    atEveryDepth(() => variable.run(1, () => {}));
    const entered = new ALS();
    atEveryDepth(() => entered.enterWith(1));
    entered.disable();
    atEveryDepth(() => new ALS().run(1, () => {}));
    for (const callbacks of [{before() {}}, {after() {}}]) {
      const hook = createHook(callbacks).enable();
      const base = Promise.resolve();
      atEveryDepth(() => {
        Promise.resolve(1);
        base.then(() => {});
      });
      const resource = new Resource('FuzzDeep');
      function recurse() {
        resource.runInAsyncScope(recurse);
      }
      try {
        recurse();
      } catch {}
      hook.disable();
    }
  });

  // Accessors on Object.prototype for the names of a frame node's fields
  // (key, value, next, resource): a node built without one of them, then
  // assigned it (executionAsyncResource() caches its resource on the node),
  // would hand the node, which holds every store, to the setter.
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  function holdsKey(object) {
    for (const name of ['key', 'value', 'next']) {
      const desc = ObjectGetOwnPropertyDescriptor(object, name);
      if (desc !== undefined && (isKey(desc.value) || reveals(desc.value))) {
        return true;
      }
    }
    return false;
  }
  attacks.push(function frameFieldAccessors() {
    for (const name of ['key', 'value', 'next', 'resource']) {
      ObjectDefineProperty(Object.prototype, name, {
        __proto__: null,
        configurable: true,
        enumerable: false,
        get() {
          if (holdsKey(this)) {
            record(`Object.prototype.${name} getter received a context`);
          }
          return undefined;
        },
        set(value) {
          if (holdsKey(this) || isKey(value)) {
            record(`Object.prototype.${name} setter received a context`);
          }
          ReflectDefineProperty(this, name, {
            __proto__: null,
            value,
            writable: true,
            enumerable: true,
            configurable: true,
          });
        },
      });
    }
  });

  // Every probe of a program asks for the current resource (the driver
  // calls FUZZ_POLLUTE_PROBE): what it returns must reveal no context.
  const executionAsyncResource = global.asyncHooks.executionAsyncResource;
  global.FUZZ_POLLUTE_PROBE = function() {
    const resource = executionAsyncResource();
    if (isKey(resource) || holdsKey(resource)) {
      record('executionAsyncResource() revealed a context');
    }
  };

  const chosen = [];
  for (const attack of attacks) {
    if (random() < 0.5) chosen[chosen.length] = attack;
  }
  if (chosen.length === 0) {
    chosen[0] = attacks[(random() * attacks.length) | 0];
  }
  for (const attack of chosen) attack();
  if (global.FUZZ_POLLUTE_VERBOSE) {
    console.log(`pollute: ${chosen.map((f) => f.name).join(", ")}`);
  }

  // The lines recorded since the last call ('' if none), each ending in a
  // newline.
  global.FUZZ_POLLUTION_REPORT = function() {
    const out = report;
    report = '';
    recorded = 0;
    return out;
  };
})(globalThis);
