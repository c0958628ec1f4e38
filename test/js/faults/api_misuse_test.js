// Misuse of every installed function: Symbols, Proxies (throwing traps,
// revoked), frozen objects, getters and conversions that throw, wrong
// receivers. Each call must return or throw a clear error (an Error, or the
// value the user's own code threw), never crash, and leave the context
// frame and the execution ids as they were.
//
// The stack-overflow, termination, out-of-memory and throwing-hook faults
// need a host and are in test/unittests/ (stack_overflow_test.cc,
// termination_test.cc, out_of_memory_test.cc, hooks_test.cc).

'use strict';

const SENTINEL = {sentinel: true};  // what user code throws below
const thrower = () => { throw SENTINEL; };
const throwingTraps = {
  get: thrower, set: thrower, has: thrower, ownKeys: thrower,
  getOwnPropertyDescriptor: thrower, defineProperty: thrower,
  deleteProperty: thrower, getPrototypeOf: thrower, setPrototypeOf: thrower,
  isExtensible: thrower, preventExtensions: thrower, apply: thrower,
  construct: thrower,
};

function revoked(target) {
  const {proxy, revoke} = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

function throwingGetters(...keys) {
  const object = {};
  for (const key of keys) {
    Object.defineProperty(object, key, {get: thrower, enumerable: true});
  }
  return object;
}

const OPTION_KEYS = [
  'defaultValue', 'name', 'triggerAsyncId', 'requireManualDestroy', 'init',
  'before', 'after', 'destroy', 'promiseResolve', 'then',
];

// name -> value. Callable ones are only passed where calling them is safe.
const WEIRD = {
  'undefined': undefined,
  'null': null,
  '0': 0,
  '-0': -0,
  '-1': -1,
  '-2': -2,
  'NaN': NaN,
  'Infinity': Infinity,
  '2**53': 2 ** 53,
  '1.5': 1.5,
  'empty string': '',
  'string': 'x',
  'long string': 'x'.repeat(100000),
  'Symbol': Symbol('weird'),
  'Symbol.iterator': Symbol.iterator,
  'bigint': 10n,
  'true': true,
  'object': {},
  'array': [1, 2],
  'null-prototype object': Object.create(null),
  'frozen object': Object.freeze({triggerAsyncId: 5}),
  'sealed array': Object.seal([]),
  'Proxy with throwing traps': new Proxy({}, throwingTraps),
  'revoked Proxy': revoked({}),
  'throwing getters': throwingGetters(...OPTION_KEYS),
  'throwing conversions': {
    valueOf: thrower, toString: thrower, [Symbol.toPrimitive]: thrower,
  },
  'Symbol-valued options': {
    defaultValue: Symbol('d'), name: Symbol('n'), triggerAsyncId: Symbol('t'),
    requireManualDestroy: Symbol('r'),
  },
  'Date': new Date(0),
  'RegExp': /x/,
  'Map': new Map(),
  'WeakRef': new WeakRef({}),
  'Promise': Promise.resolve(),
  'global object': globalThis,
};

const CALLABLE = {
  'throwing function': thrower,
  'frozen function': Object.freeze(function frozen() { return 1; }),
  'function Proxy with throwing traps': new Proxy(function() {}, throwingTraps),
  'revoked function Proxy': revoked(function() {}),
  'class': class C {},
  'bound function': function() { return 2; }.bind(null),
  'async function': async () => {},
  'generator function': function* () {},
  'function with a Symbol name': Object.defineProperty(
      function() {}, 'name', {value: Symbol('fname')}),
  'function with a throwing name getter': Object.defineProperty(
      function() {}, 'name', {get: thrower}),
};

const probe = new AsyncLocalStorage();
const subject = new AsyncLocalStorage();
const variable = new AsyncContext.Variable();
const resource = new AsyncResource('Subject');
const snapshot = new AsyncContext.Snapshot();
const hook = asyncHooks.createHook({});

// [name, receiver, function, arity, whether it may call its arguments].
const FUNCTIONS = [
  ['new AsyncLocalStorage', null, (...a) => new AsyncLocalStorage(...a), 1],
  ['als.run', subject, AsyncLocalStorage.prototype.run, 3, true],
  ['als.exit', subject, AsyncLocalStorage.prototype.exit, 2, true],
  ['als.enterWith', subject, AsyncLocalStorage.prototype.enterWith, 1],
  ['als.getStore', subject, AsyncLocalStorage.prototype.getStore, 1],
  ['als.disable', new AsyncLocalStorage(),
   AsyncLocalStorage.prototype.disable, 1],
  ['als.name', subject,
   Object.getOwnPropertyDescriptor(AsyncLocalStorage.prototype, 'name').get,
   0],
  ['AsyncLocalStorage.bind', AsyncLocalStorage, AsyncLocalStorage.bind, 1],
  ['AsyncLocalStorage.snapshot', AsyncLocalStorage,
   AsyncLocalStorage.snapshot, 1],
  ['snapshot function', null, AsyncLocalStorage.snapshot(), 2, true],
  ['new AsyncResource', null, (...a) => new AsyncResource(...a), 2],
  ['new AsyncResource (type x)', null,
   (...a) => new AsyncResource('x', ...a), 1],
  ['runInAsyncScope', resource, AsyncResource.prototype.runInAsyncScope, 3,
   true],
  ['emitDestroy', new AsyncResource('D', {requireManualDestroy: true}),
   AsyncResource.prototype.emitDestroy, 1],
  ['asyncId', resource, AsyncResource.prototype.asyncId, 1],
  ['triggerAsyncId', resource, AsyncResource.prototype.triggerAsyncId, 1],
  ['AsyncResource#bind', resource, AsyncResource.prototype.bind, 2],
  ['AsyncResource.bind', AsyncResource, AsyncResource.bind, 3],
  ['new Variable', null, (...a) => new AsyncContext.Variable(...a), 1],
  ['Variable#run', variable, AsyncContext.Variable.prototype.run, 3, true],
  ['Variable#get', variable, AsyncContext.Variable.prototype.get, 1],
  ['Variable#name', variable, Object.getOwnPropertyDescriptor(
      AsyncContext.Variable.prototype, 'name').get, 0],
  ['new Snapshot', null, (...a) => new AsyncContext.Snapshot(...a), 1],
  ['Snapshot#run', snapshot, AsyncContext.Snapshot.prototype.run, 2, true],
  ['Snapshot.wrap', AsyncContext.Snapshot, AsyncContext.Snapshot.wrap, 1],
  ['queueMicrotask', null, queueMicrotask, 1],
  ['createHook', asyncHooks, asyncHooks.createHook, 1],
  ['hook.enable/disable', hook, function(...a) {
    hook.enable(...a);
    return hook.disable(...a);
  }, 1],
  ['executionAsyncId', asyncHooks, asyncHooks.executionAsyncId, 1],
  ['triggerAsyncId', asyncHooks, asyncHooks.triggerAsyncId, 1],
  ['executionAsyncResource', asyncHooks, asyncHooks.executionAsyncResource,
   1],
];

function isClear(error) {
  return error === SENTINEL || error instanceof Error;
}

// Calls `call` inside probe.run and checks everything around it. Returns a
// description of what went wrong, or ''.
function checkedCall(what, call) {
  const eid = asyncHooks.executionAsyncId();
  const tid = asyncHooks.triggerAsyncId();
  let problem = '';
  probe.run('outer', () => {
    try {
      call();
    } catch (error) {
      if (!isClear(error)) {
        problem = `${what}: threw a non-Error ${typeof error} ` +
                  `(${typeof error === 'symbol' ? 'symbol' : String(error)})`;
      } else if (error instanceof Error &&
                 (typeof error.message !== 'string' ||
                  error.message.length === 0)) {
        problem = `${what}: threw ${error.name} with no message`;
      }
    }
    if (probe.getStore() !== 'outer') {
      problem = `${what}: probe store is ${String(probe.getStore())} inside`;
    }
  });
  if (probe.getStore() !== undefined || subject.getStore() !== undefined ||
      variable.get() !== undefined) {
    problem = `${what}: a store leaked out of run`;
  }
  if (asyncHooks.executionAsyncId() !== eid ||
      asyncHooks.triggerAsyncId() !== tid) {
    problem = `${what}: execution ids changed`;
  }
  return problem;
}

function argumentMatrix() {
  const problems = [];
  let calls = 0;
  for (const [name, receiver, fn, arity, callsArgs] of FUNCTIONS) {
    const values = Object.entries(WEIRD);
    if (callsArgs) values.push(...Object.entries(CALLABLE));
    for (const [valueName, value] of values) {
      for (let position = 0; position < Math.max(arity, 1); position++) {
        const args = [];
        for (let i = 0; i < position; i++) args.push(() => 'ok');
        args[position] = value;
        calls++;
        const problem = checkedCall(
            `${name}(arg ${position} = ${valueName})`,
            () => Reflect.apply(fn, receiver, args));
        if (problem) problems.push(problem);
      }
      // The value as the receiver.
      if (receiver !== null) {
        calls++;
        const problem = checkedCall(`${name} on ${valueName}`,
                                    () => Reflect.apply(fn, value, []));
        if (problem) problems.push(problem);
      }
    }
  }
  return {problems, calls};
}

test('every installed function with weird arguments and receivers', () => {
  const {problems, calls} = argumentMatrix();
  assert(calls > 2000, 'only ' + calls + ' calls');
  assert.equal(problems.join('; '), '');
});

test('the same with a hook enabled', () => {
  const events = [];
  const h = asyncHooks.createHook({
    init(id, type) { events.push(type); },
    before() {}, after() {}, destroy() {}, promiseResolve() {},
  }).enable();
  try {
    const {problems} = argumentMatrix();
    assert.equal(problems.join('; '), '');
  } finally {
    h.disable();
  }
  assert(events.length > 0);
});

test('getters on options objects that throw: the user\'s error', () => {
  assert.equal(assert.throws(() => new AsyncLocalStorage(
      {get defaultValue() { throw SENTINEL; }})), SENTINEL);
  assert.equal(assert.throws(() => new AsyncLocalStorage(
      {get name() { throw SENTINEL; }})), SENTINEL);
  assert.equal(assert.throws(() => new AsyncResource(
      'x', {get triggerAsyncId() { throw SENTINEL; }})), SENTINEL);
  assert.equal(assert.throws(() => new AsyncResource(
      'x', {get requireManualDestroy() { throw SENTINEL; }})), SENTINEL);
  for (const kind of ['init', 'before', 'after', 'destroy',
                      'promiseResolve']) {
    assert.equal(assert.throws(() => asyncHooks.createHook(
        {get [kind]() { throw SENTINEL; }})), SENTINEL, kind);
  }
  assert.equal(assert.throws(() => new AsyncContext.Variable(
      {get name() { throw SENTINEL; }})), SENTINEL);
  assert.equal(assert.throws(() => new AsyncContext.Variable(
      {get defaultValue() { throw SENTINEL; }})), SENTINEL);
  assert.equal(assert.throws(() => new AsyncLocalStorage(
      {name: {toString() { throw SENTINEL; }}})), SENTINEL);
});

test('a failed constructor leaves no hook event and no state', () => {
  const inits = [];
  const h = asyncHooks.createHook({init(id, type) { inits.push(type); }})
      .enable();
  try {
    assert.throws(() => new AsyncResource(
        'Bad', {get triggerAsyncId() { throw SENTINEL; }}));
    assert.throws(() => new AsyncResource('Bad', {triggerAsyncId: -2}),
                  {code: 'ERR_INVALID_ASYNC_ID'});
    assert.throws(() => new AsyncResource('', {}), {code: 'ERR_ASYNC_TYPE'});
  } finally {
    h.disable();
  }
  assert.deepEqual(inits, []);
});

test('Symbols: Node\'s ERR_INVALID_ARG_TYPE, or a TypeError', () => {
  const sym = Symbol('s');
  assert.throws(() => new AsyncResource(sym),
                {code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError'});
  assert.match(assert.throws(() => new AsyncResource(sym)).message,
               /Received type symbol \(Symbol\(s\)\)/);
  assert.throws(() => probe.run(1, sym), {code: 'ERR_INVALID_ARG_TYPE'});
  assert.throws(() => probe.exit(sym), {code: 'ERR_INVALID_ARG_TYPE'});
  assert.throws(() => queueMicrotask(sym), {code: 'ERR_INVALID_ARG_TYPE'});
  // As in Node.js 24: a primitive is an object without callbacks.
  asyncHooks.createHook(sym);
  assert.throws(() => new AsyncResource('x', {triggerAsyncId: sym}),
                {code: 'ERR_INVALID_ASYNC_ID'});
  assert.throws(() => new AsyncContext.Variable({name: sym}), TypeError);
  // A Symbol is a fine store value.
  assert.equal(probe.run(sym, () => probe.getStore()), sym);
  assert.equal(variable.run(sym, () => variable.get()), sym);
});

test('revoked Proxies: a TypeError, state unchanged', () => {
  assert.throws(() => new AsyncLocalStorage(revoked({})), TypeError);
  assert.throws(() => asyncHooks.createHook(revoked({})), TypeError);
  assert.throws(() => new AsyncResource('x', revoked({})), TypeError);
  assert.throws(() => probe.run(1, revoked(() => {})), TypeError);
  assert.equal(probe.getStore(), undefined);
  assert.throws(() => resource.runInAsyncScope(revoked(() => {})), TypeError);
  assert.equal(asyncHooks.executionAsyncId(), asyncHooks.executionAsyncId());
  // As a store value it is just a value.
  const r = revoked({});
  assert.equal(probe.run(r, () => probe.getStore()), r);
});

test('frozen instances keep working', () => {
  const als = Object.freeze(new AsyncLocalStorage());
  const v = Object.freeze(new AsyncContext.Variable());
  const res = Object.freeze(new AsyncResource('Frozen'));
  const s = Object.freeze(new AsyncContext.Snapshot());
  const h = Object.freeze(asyncHooks.createHook({}));
  assert.equal(als.run(1, () => als.getStore()), 1);
  als.disable();
  assert.equal(als.getStore(), undefined);
  assert.equal(v.run(2, () => v.get()), 2);
  assert.equal(res.runInAsyncScope(() => asyncHooks.executionAsyncId()),
               res.asyncId());
  assert.equal(res.bind(() => 3)(), 3);
  assert.equal(s.run(() => 4), 4);
  assert.equal(h.enable(), h);
  assert.equal(h.disable(), h);
  const store = Object.freeze({id: 1});
  assert.equal(als.run(store, () => als.getStore()), store);
  const bound = AsyncResource.bind(Object.freeze(function f(a, b) {}));
  assert.equal(bound.length, 2);
});

test('a microtask whose callback is a revoked function Proxy', async () => {
  // It passes the typeof check, then throws when called; the error is
  // reported as uncaught by the host, which this harness cannot observe,
  // so only the frame is checked here.
  await probe.run('mt', async () => {
    queueMicrotask(() => {});
    await null;
    assert.equal(probe.getStore(), 'mt');
  });
  assert.equal(probe.getStore(), undefined);
});

// Node.js's own code is written against "primordials" so that user code
// that replaces a builtin (a polyfill, a monkey-patching tracer, a hostile
// tenant) cannot break async context or see its internals. Each builtin
// below is replaced by a throwing function while one operation runs.
// Among them the ones the JavaScript layer could be tempted to call:
// Array.prototype.slice/splice/push, the array iterator (spread and rest),
// FinalizationRegistry.prototype.register and Symbol.prototype.toString.
test('replaced builtins do not break the installed API', () => {
  const tampered = new Error('tampered');
  const replace = () => { throw tampered; };
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]());
  const builtins = {
    'Array.prototype.slice': [Array.prototype, 'slice'],
    'Array.prototype.splice': [Array.prototype, 'splice'],
    'Array.prototype.push': [Array.prototype, 'push'],
    'Array.prototype.pop': [Array.prototype, 'pop'],
    'Array.prototype.filter': [Array.prototype, 'filter'],
    'Array.prototype[Symbol.iterator]': [Array.prototype, Symbol.iterator],
    '%ArrayIteratorPrototype%.next': [arrayIterator, 'next'],
    'Reflect.apply': [Reflect, 'apply'],
    'Object.defineProperty': [Object, 'defineProperty'],
    'Object.freeze': [Object, 'freeze'],
    'Function.prototype.call': [Function.prototype, 'call'],
    'Function.prototype.apply': [Function.prototype, 'apply'],
    'Function.prototype.bind': [Function.prototype, 'bind'],
    'FinalizationRegistry.prototype.register':
        [FinalizationRegistry.prototype, 'register'],
    'FinalizationRegistry.prototype.unregister':
        [FinalizationRegistry.prototype, 'unregister'],
    'Number.isSafeInteger': [Number, 'isSafeInteger'],
    'Array.isArray': [Array, 'isArray'],
    'Symbol.prototype.toString': [Symbol.prototype, 'toString'],
  };
  const operations = {
    'run': () => {
      const a = new AsyncLocalStorage();
      return a.run(1, () => a.getStore()) === 1;
    },
    'nested run of one store': () => {
      const a = new AsyncLocalStorage();
      return a.run(1, () => a.run(2, () => a.getStore())) === 2;
    },
    'exit with two stores': () => {
      const a = new AsyncLocalStorage();
      const b = new AsyncLocalStorage();
      return a.run(1, () => b.run(2, () => a.exit(() => b.getStore()))) === 2;
    },
    'enterWith': () => {
      const a = new AsyncLocalStorage();
      return probe.run(0, () => {
        a.enterWith(1);
        return a.getStore();
      }) === 1;
    },
    'runInAsyncScope': () =>
        new AsyncResource('X').runInAsyncScope((x) => x, null, 5) === 5,
    'AsyncResource.bind': () => AsyncResource.bind((x) => x)(6) === 6,
    'AsyncLocalStorage.snapshot': () =>
        AsyncLocalStorage.snapshot()((x) => x, 7) === 7,
    'AsyncResource with a destroy hook': () => {
      const h = asyncHooks.createHook({destroy() {}}).enable();
      try {
        return new AsyncResource('X').emitDestroy().asyncId() > 1;
      } finally {
        h.disable();
      }
    },
    'createHook enable/disable': () => {
      const h = asyncHooks.createHook({init() {}});
      return h.enable().disable() === h;
    },
    'Snapshot.wrap': () => AsyncContext.Snapshot.wrap((x) => x)(8) === 8,
    'Variable#run': () => {
      const v = new AsyncContext.Variable();
      return v.run(1, () => v.get()) === 1;
    },
    'queueMicrotask inside run': () => {
      probe.run(1, () => queueMicrotask(() => {}));
      return true;
    },
    'validation error for a Symbol': () => {
      try {
        new AsyncResource(Symbol('q'));
      } catch (e) {
        return e.code === 'ERR_INVALID_ARG_TYPE';
      }
      return false;
    },
  };
  const broken = [];
  for (const [builtinName, [object, key]] of Object.entries(builtins)) {
    for (const [operationName, operation] of Object.entries(operations)) {
      const descriptor = getOwnPropertyDescriptor(object, key);
      let outcome;
      defineProperty(object, key, {
        value: replace, configurable: true, writable: true,
      });
      try {
        outcome = operation() ? 'ok' : 'wrong result';
      } catch (e) {
        outcome = e === tampered ? 'called it' : 'threw ' + e;
      } finally {
        defineProperty(object, key, descriptor);
      }
      if (outcome !== 'ok') {
        broken.push(`${operationName} with ${builtinName}: ${outcome}`);
      }
    }
  }
  assert.equal(broken.join('; '), '');
});
