// Accessors on Array.prototype indices (getters and
// setters that record what passes, some of them throwing) and a polluted
// Symbol.iterator, Symbol.species and Array.prototype methods. Frames, hook
// lists, saved frames and the execution stack never go through them: no
// store reaches the attacker, no push of the async id stack is left half
// done (no abort), and every queued callback runs.
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const observed = [];
for (let i = 0; i < 64; i++) {
  Object.defineProperty(Array.prototype, i, {
    get() {
      return undefined;
    },
    set(value) {
      p.push(observed, value);
      if (i === 1) throw new Error('setter on Array.prototype[1]');
    },
    configurable: true,
  });
}
Object.defineProperty(Array.prototype, Symbol.iterator, {
  value: function* () {
    p.push(observed, this);
  },
  configurable: true,
  writable: true,
});
Object.defineProperty(Array, Symbol.species, {
  get() {
    p.push(observed, this);
    return undefined;
  },
  configurable: true,
});
for (const name of ['push', 'pop', 'shift', 'unshift', 'slice', 'splice',
                    'concat', 'indexOf', 'includes', 'map', 'filter',
                    'forEach', 'join']) {
  Array.prototype[name] = function(...args) {
    p.push(observed, this);
    p.push(observed, args);
  };
}
// With no hook enabled (the tenants below all enable one), queueMicrotask
// keeps the callback and its frame in its own queue: its lists must not
// reach these setters either.
new AsyncLocalStorage().run({token: `${SECRET_MARK}-0`}, () => {
  queueMicrotask(() => {});
});
runTenants(p, observed, makeAttacker(p, observed));
