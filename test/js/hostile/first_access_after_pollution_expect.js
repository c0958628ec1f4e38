// The installed globals are made at their first read (docs/embedding.md,
// "What Install costs"). Here an attacker runs before any of them is read:
// it replaces the global builtins with spies, patches the prototype methods
// the layer uses, puts accessors on Array.prototype indices and on
// Object.prototype names, replaces Symbol.iterator and Symbol.species, and
// (reading asyncHooks first) enables a hook of its own. Then the other
// globals are read for the first time and used. The layer took its builtins
// when it was installed, so nothing the attacker put in place is called,
// while the globals are made or after, the hook is given no resource made
// for them, and the descriptors are those of plain data properties.
// expect-stdout: ^first access ok$
'use strict';

const apply = Reflect.apply;
const construct = Reflect.construct;
const gOPD = Object.getOwnPropertyDescriptor;
const defineProperty = Object.defineProperty;
const ownKeys = Reflect.ownKeys;
const ProxyCtor = Proxy;
const StringCtor = String;
const hasOwnProperty = Object.prototype.hasOwnProperty;
const hasOwn = (object, key) => apply(hasOwnProperty, object, [key]);

let hits = 0;
let firstHit = '';
function record(what) {
  if (hits++ === 0) firstHit = what;
}

// Every descriptor and list of this file has a null prototype or only own
// elements, so that the attack does not reach the test itself.

// Accessors on Array.prototype indices, Symbol.iterator and Symbol.species.
for (let i = 0; i < 64; i++) {
  defineProperty(Array.prototype, i, {
    __proto__: null,
    get() {
      record(`Array.prototype[${i}] get`);
      return undefined;
    },
    set(value) {
      record(`Array.prototype[${i}] set`);
    },
    configurable: true,
  });
}
defineProperty(Array.prototype, Symbol.iterator, {
  __proto__: null,
  value: function* () {
    record('Array.prototype[Symbol.iterator]');
  },
  configurable: true,
  writable: true,
});
defineProperty(Array, Symbol.species, {
  __proto__: null,
  get() {
    record('Array[Symbol.species]');
    return undefined;
  },
  configurable: true,
});

// Accessors on Object.prototype for names the layer's objects use.
const names = ['value', 'writable', 'enumerable', 'configurable', 'get', 'set',
               'exports', 'next', 'key', 'resource', 'callbacks', 'frames',
               'Variable', 'Snapshot', 'AsyncLocalStorage', 'AsyncResource',
               'createHook', 'channel', 'run', 'getStore', 'then'];
for (let i = 0; i < names.length; i++) {
  const name = names[i];
  defineProperty(Object.prototype, name, {
    __proto__: null,
    get() {
      record(`Object.prototype.${name} get`);
      return undefined;
    },
    set(value) {
      record(`Object.prototype.${name} set`);
    },
    configurable: true,
  });
}

// Prototype methods, still working.
function patch(object, key, label) {
  const original = object[key];
  defineProperty(object, key, {
    __proto__: null,
    value: function(...args) {
      record(label);
      return apply(original, this, args);
    },
    writable: true,
    configurable: true,
  });
}
patch(Function.prototype, 'call', 'Function.prototype.call');
patch(Function.prototype, 'apply', 'Function.prototype.apply');
patch(Function.prototype, 'bind', 'Function.prototype.bind');
patch(Map.prototype, 'get', 'Map.prototype.get');
patch(Map.prototype, 'set', 'Map.prototype.set');
patch(Map.prototype, 'delete', 'Map.prototype.delete');
patch(Set.prototype, 'add', 'Set.prototype.add');
patch(Set.prototype, 'delete', 'Set.prototype.delete');
patch(WeakRef.prototype, 'deref', 'WeakRef.prototype.deref');
patch(FinalizationRegistry.prototype, 'register',
      'FinalizationRegistry.prototype.register');
patch(Promise.prototype, 'then', 'Promise.prototype.then');
patch(String.prototype, 'slice', 'String.prototype.slice');
patch(String.prototype, 'indexOf', 'String.prototype.indexOf');

// The global builtins, replaced by spies that record every use.
function spy(target, label) {
  return new ProxyCtor(target, {
    __proto__: null,
    get(t, key) {
      record(`${label}.${StringCtor(key)}`);
      return t[key];
    },
    apply(t, self, args) {
      record(`${label}()`);
      return apply(t, self, args);
    },
    construct(t, args, newTarget) {
      record(`new ${label}`);
      return construct(t, args, newTarget);
    },
  });
}
const replaced = ['Reflect', 'Object', 'Array', 'Map', 'Set', 'WeakRef',
                  'FinalizationRegistry', 'Promise', 'Symbol', 'Error',
                  'TypeError', 'RangeError', 'Math', 'Number', 'String'];
for (let i = 0; i < replaced.length; i++) {
  const name = replaced[i];
  globalThis[name] = spy(globalThis[name], name);
}

let wrong = '';
function expect(what, ok) {
  if (!ok) wrong = wrong === '' ? what : `${wrong}, ${what}`;
}
// {value, writable: true, enumerable: false, configurable: true}, own
// properties only (no get, no set).
function isPlainDataDescriptor(desc, type) {
  if (desc === undefined) return false;
  return ownKeys(desc).length === 4 && hasOwn(desc, 'value') &&
         typeof desc.value === type && hasOwn(desc, 'writable') &&
         desc.writable === true && hasOwn(desc, 'enumerable') &&
         desc.enumerable === false && hasOwn(desc, 'configurable') &&
         desc.configurable === true;
}

// The first read of each global, after the attack.
const hooksDesc = gOPD(globalThis, 'asyncHooks');
expect('asyncHooks descriptor', isPlainDataDescriptor(hooksDesc, 'object'));
let inits = 0;
hooksDesc.value.createHook({
  __proto__: null,
  init(asyncId, type) {
    inits++;
  },
}).enable();
const hitsBefore = hits;
const initsBefore = inits;
const descs = {
  AsyncLocalStorage: gOPD(globalThis, 'AsyncLocalStorage'),
  AsyncResource: gOPD(globalThis, 'AsyncResource'),
  AsyncContext: gOPD(globalThis, 'AsyncContext'),
  queueMicrotask: gOPD(globalThis, 'queueMicrotask'),
  diagnosticsChannel: gOPD(globalThis, 'diagnosticsChannel'),
};
expect('AsyncLocalStorage descriptor',
       isPlainDataDescriptor(descs.AsyncLocalStorage, 'function'));
expect('AsyncResource descriptor',
       isPlainDataDescriptor(descs.AsyncResource, 'function'));
expect('AsyncContext descriptor',
       isPlainDataDescriptor(descs.AsyncContext, 'object'));
expect('queueMicrotask descriptor',
       isPlainDataDescriptor(descs.queueMicrotask, 'function'));
expect('diagnosticsChannel descriptor',
       isPlainDataDescriptor(descs.diagnosticsChannel, 'object'));
expect('no init while the globals were made', inits === initsBefore);
expect('no spy while the globals were made', hits === hitsBefore);
expect('asyncHooks holds the same classes',
       hooksDesc.value.AsyncLocalStorage === AsyncLocalStorage &&
           hooksDesc.value.AsyncResource === AsyncResource);

// Then used, still under the attack.
const als = new AsyncLocalStorage();
const variable = new AsyncContext.Variable({__proto__: null, name: 'v'});
const dc = diagnosticsChannel;
const ch = dc.channel('first-access');
let published = '';
ch.subscribe((message) => {
  published = `${message} ${als.getStore()} ${variable.get()}`;
});
const bound = new AsyncLocalStorage();
ch.bindStore(bound);
let pending = 3;
function finish() {
  if (--pending !== 0) return;
  expect('no spy was called', hits === 0);
  const result = wrong === '' ? 'first access ok' :
                                `first access FAILED: ${wrong}`;
  console.log(hits === 0 ? result : `${result}; first spy: ${firstHit}`);
}
als.run('store', () => variable.run('var', () => {
  const snapshot = new AsyncContext.Snapshot();
  ch.runStores('message', () => {
    expect('runStores entered the bound store',
           bound.getStore() === 'message');
  });
  expect('published in the context', published === 'message store var');
  queueMicrotask(() => {
    expect('queueMicrotask keeps the store',
           als.getStore() === 'store' && variable.get() === 'var');
    finish();
  });
  (async () => {
    await null;
    expect('await keeps the store',
           als.getStore() === 'store' && variable.get() === 'var');
    finish();
  })();
  als.exit(() => {
    snapshot.run(() => {
      expect('a snapshot taken in run restores it',
             als.getStore() === 'store' && variable.get() === 'var');
    });
  });
  const resource = new AsyncResource('FirstAccess');
  resource.runInAsyncScope(() => {
    expect('runInAsyncScope keeps the store', als.getStore() === 'store');
  });
  finish();
}));
