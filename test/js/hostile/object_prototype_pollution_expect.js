// Object.prototype.get/set (which would turn a
// plain descriptor into an accessor), value/writable/enumerable, setters
// for names the layer could use (key, value, next, frame, resource,
// callback, name, length, asyncResource, code, stack), and a polluted
// Function.prototype (call, apply, bind). Snapshot.wrap,
// AsyncResource#bind, AsyncLocalStorage.bind/snapshot and the error paths
// keep working, and nothing reaches the attacker.
// expect-stdout: ^victim ok$
// expect-stdout: ^errors ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const observed = [];
const record = function(v) {
  p.push(observed, v);
  return undefined;
};
for (const name of ['key', 'value', 'next', 'frame', 'resource', 'callback',
                    'asyncResource', 'code', 'stack', 'store', 'enabled']) {
  Object.defineProperty(Object.prototype, name, {
    __proto__: null,
    get() {
      p.push(observed, this);
      return undefined;
    },
    set: record,
    configurable: true,
  });
}
for (const name of ['call', 'apply', 'bind']) {
  Function.prototype[name] = function(...args) {
    p.push(observed, args);
  };
}

Object.prototype.get = function() {
  p.push(observed, this);
  return 'forged';
};
Object.prototype.set = function(v) {
  p.push(observed, v);
};

// The error paths, with a polluted realm.
let errorsOk = true;
function expectCode(fn, code) {
  try {
    fn();
    errorsOk = false;
  } catch (e) {
    const desc = Reflect.getOwnPropertyDescriptor(e, 'code');
    if (!desc || desc.value !== code) errorsOk = false;
  }
}
expectCode(() => new AsyncLocalStorage().run(1, 5), 'ERR_INVALID_ARG_TYPE');
expectCode(() => new AsyncResource(5), 'ERR_INVALID_ARG_TYPE');
expectCode(() => new AsyncResource('x', {triggerAsyncId: -5}),
           'ERR_INVALID_ASYNC_ID');
expectCode(() => AsyncContext.Snapshot.wrap(5), 'ERR_INVALID_ARG_TYPE');
expectCode(() => asyncHooks.createHook({init: 5}), 'ERR_ASYNC_CALLBACK');
expectCode(() => queueMicrotask(5), 'ERR_INVALID_ARG_TYPE');
const wrapped = AsyncContext.Snapshot.wrap(function named(a, b) {});
const wrappedName = Reflect.getOwnPropertyDescriptor(wrapped, 'name');
if (!wrappedName || wrappedName.value !== 'wrapped named') errorsOk = false;
p.log(errorsOk ? 'errors ok' : 'FAIL: errors');
runTenants(p, observed, makeAttacker(p, observed));
