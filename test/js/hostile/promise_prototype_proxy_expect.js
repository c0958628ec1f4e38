// A Proxy placed between Promise.prototype and
// Object.prototype (and one as Object.prototype's... no: between
// Function.prototype and Object.prototype too) records every property
// lookup, definition and key listing that reaches it. Promise state lives
// in private names, so no frame of any tenant (including the internal
// promises of await) reaches the trap, and substituting values through it
// changes nothing the victim sees.
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const observed = [];
const R = Reflect;
function trap(target) {
  return new Proxy(target, {
    get(t, key, receiver) {
      p.push(observed, key);
      p.push(observed, receiver);
      return R.get(t, key, receiver);
    },
    set(t, key, value, receiver) {
      p.push(observed, value);
      return R.set(t, key, value, receiver);
    },
    has(t, key) {
      p.push(observed, key);
      return R.has(t, key);
    },
    defineProperty(t, key, desc) {
      p.push(observed, desc);
      return R.defineProperty(t, key, desc);
    },
    getOwnPropertyDescriptor(t, key) {
      p.push(observed, key);
      return R.getOwnPropertyDescriptor(t, key);
    },
  });
}
Object.setPrototypeOf(Promise.prototype, trap(Object.prototype));
Object.setPrototypeOf(Function.prototype, trap(Object.prototype));
// Symbols the previous layer used: a forged value must change nothing.
for (const name of ['asyncctx.frame', 'asyncctx.asyncId',
                    'asyncctx.triggerAsyncId']) {
  Object.defineProperty(Object.prototype, Symbol.for(name), {
    get() { return ['forged', 'forged']; },
    set(value) { p.push(observed, value); },
    configurable: true,
  });
}
runTenants(p, observed, makeAttacker(p, observed));
