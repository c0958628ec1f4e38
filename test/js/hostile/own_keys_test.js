// Nothing the library attaches state to carries a
// store, a variable's value, a frame or an async id where JavaScript can
// reach it. Walks Reflect.ownKeys (strings and symbols, so
// getOwnPropertySymbols too) of every object the library touches, and of
// every object reachable from their own data properties, and finds no
// secret; then checks that rewriting every own property of a promise
// inside its own reaction changes nothing for the next tenant.

'use strict';

const SECRET = 'own-keys-secret-91c2';

function reachable(root) {
  const seen = new Set();
  const found = [];
  function visit(value, path, depth) {
    if (typeof value === 'string') {
      if (value.includes(SECRET)) found.push(path);
      return;
    }
    if (value === null || (typeof value !== 'object' &&
                           typeof value !== 'function')) {
      return;
    }
    if (seen.has(value) || depth > 8) return;
    seen.add(value);
    for (const key of Reflect.ownKeys(value)) {
      const desc = Reflect.getOwnPropertyDescriptor(value, key);
      if ('value' in desc) visit(desc.value, `${path}.${String(key)}`, depth + 1);
    }
    visit(Object.getPrototypeOf(value), `${path}.__proto__`, depth + 1);
  }
  visit(root, 'root', 0);
  return found;
}

async function collectTouchedObjects(withHooks) {
  const touched = [];
  const resources = [];
  const hook = withHooks ? asyncHooks.createHook({
    init(id, type, trigger, resource) {
      resources.push(resource);
    },
    before() {},
    after() {},
    destroy() {},
    promiseResolve() {},
  }).enable() : undefined;
  const als = new AsyncLocalStorage();
  const variable = new AsyncContext.Variable();
  const secret = {token: SECRET};
  try {
    await als.run(secret, () => variable.run(`${SECRET}-v`, async () => {
      const p = Promise.resolve(1);
      touched.push(p, p.then(() => {}), new Promise(() => {}));
      const thenable = (async () => {
        await {then(r) { r(); }};
        touched.push(asyncHooks.executionAsyncResource());
      })();
      touched.push(thenable);
      touched.push(asyncHooks.executionAsyncResource());
      const resource = new AsyncResource('Touched');
      touched.push(resource, resource.bind(() => {}));
      touched.push(AsyncResource.bind(() => {}));
      touched.push(AsyncLocalStorage.bind(() => {}));
      touched.push(AsyncLocalStorage.snapshot());
      touched.push(AsyncContext.Snapshot.wrap(() => {}));
      touched.push(new AsyncContext.Snapshot());
      touched.push(als, variable);
      resource.runInAsyncScope(() => {
        touched.push(asyncHooks.executionAsyncResource());
      });
      await new Promise((resolve) => queueMicrotask(() => {
        touched.push(asyncHooks.executionAsyncResource());
        resolve();
      }));
      await null;
      touched.push(asyncHooks.executionAsyncResource());
      await thenable;
    }));
  } finally {
    if (hook) hook.disable();
  }
  touched.push(...resources);
  touched.push(asyncHooks.executionAsyncResource());
  return touched;
}

test('no own key of anything the library touches holds a store',
     async () => {
       const touched = await collectTouchedObjects(false);
       assert.deepEqual(reachable(touched), []);
     });

test('the same with every hook kind enabled', async () => {
  const touched = await collectTouchedObjects(true);
  assert(touched.length > 20, 'the hooks saw resources');
  assert.deepEqual(reachable(touched), []);
});

test('a promise made in a store has no own keys or symbols',
     () => {
       const als = new AsyncLocalStorage();
       const hook = asyncHooks.createHook({init() {}}).enable();
       try {
         const p = als.run(SECRET, () => Promise.resolve());
         assert.deepEqual(Reflect.ownKeys(p), []);
         assert.deepEqual(Object.getOwnPropertySymbols(p), []);
       } finally {
         hook.disable();
       }
     });

test('properties written on a promise in its reaction ' +
     'change no id, resource or queued callback',
     async () => {
       const ids = new Map();
       const hook = asyncHooks.createHook({
         init(id, type, trigger, resource) {
           if (type === 'PROMISE') ids.set(resource, [id, trigger]);
         },
         before() {},
         after() {},
       }).enable();
       try {
         const attackerPromise = Promise.resolve();
         let inside;
         const derived = attackerPromise.then(() => {
           for (const target of [attackerPromise, derived]) {
             // Nothing of the library's is an own property to rewrite...
             assert.deepEqual(Reflect.ownKeys(target), []);
             // ...and names it might have used, written now, are not read.
             for (const key of ['asyncId', 'triggerAsyncId', 'frame',
                                'resource', 'asyncctx.asyncId',
                                Symbol.for('asyncctx.asyncId'),
                                Symbol.for('asyncctx.frame'),
                                Symbol.for('asyncctx.triggerAsyncId')]) {
               target[key] = 12345;
             }
           }
         });
         const chained = derived.then(() => {
           inside = [asyncHooks.executionAsyncId(), asyncHooks.triggerAsyncId(),
                     asyncHooks.executionAsyncResource()];
         });
         await chained;
         // The reaction of `derived` ran as the promise then() made, on
         // behalf of `derived`: the ids the hook was given at their init.
         assert.deepEqual(inside, [ids.get(chained)[0], ids.get(derived)[0],
                                   chained]);
         assert.equal(ids.get(chained)[1], ids.get(derived)[0]);
         const ran = await new Promise((resolve) => setTimeout(() => {
           const order = [];
           queueMicrotask(() => order.push('microtask'));
           Promise.resolve().then(() => order.push('reaction'));
           setTimeout(() => resolve(order), 0);
         }, 0));
         assert.deepEqual(ran, ['microtask', 'reaction']);
       } finally {
         hook.disable();
       }
     });
