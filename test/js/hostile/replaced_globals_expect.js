// An attacker replaces the global Array,
// Promise, Reflect, Object, Function and Symbol with spies that record every
// argument (and still work). The library captured its builtins at install,
// so no frame, store or hook reaches the spies, and the victim's callbacks
// all run in its own context.
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const observed = [];
const {apply, construct} = Reflect;
const ProxyCtor = Proxy;
function spy(target) {
  return new ProxyCtor(target, {
    apply(t, self, args) {
      p.push(observed, args);
      return apply(t, self, args);
    },
    construct(t, args, newTarget) {
      p.push(observed, args);
      return construct(t, args, newTarget);
    },
    get(t, key) {
      const value = t[key];
      if (typeof value !== 'function') return value;
      return new ProxyCtor(value, {
        apply(f, self, args) {
          p.push(observed, args);
          return apply(f, self, args);
        },
      });
    },
  });
}
for (const name of ['Array', 'Promise', 'Reflect', 'Object', 'Function',
                    'Symbol', 'WeakMap', 'Map', 'Set',
                    'FinalizationRegistry']) {
  globalThis[name] = spy(globalThis[name]);
}
runTenants(p, observed, makeAttacker(p, observed));
