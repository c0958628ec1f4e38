// asyncHooks.createHook: validation, enable/disable, and the init / before /
// after / destroy / promiseResolve events for AsyncResource, host timers and
// immediates, promises and wrapped microtasks.
//
// Hooks also see the harness's own timers and promises, so every case
// filters events down to the resources it made. Every case disables its
// hooks in a finally block. GC-driven destroy is in hooks_gc_expect.js, a
// throwing hook in hooks_throw_expect.js, disabling hooks inside a promise
// reaction in hooks_disable_in_reaction_expect.js.

'use strict';

const {createHook, executionAsyncId, triggerAsyncId,
       executionAsyncResource} = asyncHooks;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

// Waits, one host turn (a 0 ms timer) at a time, until `done()` holds. For
// the events of a timer, which the shell emits after the pass that ran every
// due timer: a wait of a fixed time can share that pass on a slow machine
// (the wait ends first), an order cannot. The harness's limit bounds it.
async function until(done) {
  while (!done()) await tick();
}

// Runs fn with the hooks enabled, always disabling them afterwards.
async function withHooks(hooks, fn) {
  const list = Array.isArray(hooks) ? hooks : [hooks];
  try {
    return await fn();
  } finally {
    for (const hook of list) hook.disable();
  }
}

// A hook that records every event of the given kinds for ids in `ids` (a
// Set, filled by `init` when `accept(type, resource, id)` says so).
function recorder(accept, kinds = ['init', 'before', 'after', 'destroy',
                                   'promiseResolve']) {
  const ids = new Set();
  const events = [];
  const callbacks = {};
  if (kinds.includes('init')) {
    callbacks.init = (id, type, trigger, resource) => {
      if (!accept(type, resource, id)) return;
      ids.add(id);
      events.push(['init', id, type, trigger]);
    };
  }
  for (const kind of ['before', 'after', 'destroy', 'promiseResolve']) {
    if (!kinds.includes(kind)) continue;
    callbacks[kind] = (id) => {
      if (ids.has(id)) events.push([kind, id]);
    };
  }
  const hook = createHook(callbacks);
  return {hook, ids, events};
}

// --- createHook validation and enable / disable ------------------------------

test('asyncHooks has the shape of node:async_hooks', () => {
  for (const name of ['createHook', 'executionAsyncId', 'triggerAsyncId',
                      'executionAsyncResource']) {
    assert.equal(typeof asyncHooks[name], 'function', name);
  }
  assert.equal(asyncHooks.AsyncLocalStorage, AsyncLocalStorage);
  assert.equal(asyncHooks.AsyncResource, AsyncResource);
  assert.equal(typeof asyncHooks.asyncWrapProviders, 'object');
  assert(Object.isFrozen(asyncHooks));
});

test('createHook with a non-function callback throws ERR_ASYNC_CALLBACK',
     () => {
       for (const kind of ['init', 'before', 'after', 'destroy',
                           'promiseResolve']) {
         for (const value of [1, 'f', {}, null, true]) {
           const err = assert.throws(() => createHook({[kind]: value}),
                                     TypeError);
           assert.equal(err.code, 'ERR_ASYNC_CALLBACK');
           assert.equal(err.message, `hook.${kind} must be a function`);
         }
       }
     });

test('createHook accepts missing callbacks', () => {
  const hook = createHook({});
  assert.equal(hook.enable(), hook);
  assert.equal(hook.disable(), hook);
  const partial = createHook({init: undefined, before() {}});
  assert.equal(partial.enable().disable(), partial);
});

// Node 24 destructures its argument: undefined and null throw a TypeError,
// any other value is accepted (`createHook(5)`, `createHook(fn)`: no
// callbacks).
test('createHook(fn) and createHook(5) are accepted, as in Node',
     () => {
       // Node 24's messages (the destructuring's, from V8).
       assert.equal(
           assert.throws(() => createHook(), TypeError).message,
           "Cannot destructure property 'init' of 'undefined' as it is " +
               'undefined.');
       assert.equal(
           assert.throws(() => createHook(null), TypeError).message,
           "Cannot destructure property 'init' of 'object null' as it is " +
               'null.');
       createHook(5).enable().disable();
       createHook(() => {}).enable().disable();
       createHook('init').enable().disable();
     });

test('enable and disable return the hook and are idempotent', async () => {
  const {hook, events} = recorder((type) => type === 'Idem', ['init']);
  await withHooks(hook, () => {
    assert.equal(hook.enable(), hook);
    assert.equal(hook.enable(), hook);
    new AsyncResource('Idem');
    assert.equal(events.length, 1);
    assert.equal(hook.disable(), hook);
    assert.equal(hook.disable(), hook);
    new AsyncResource('Idem');
    assert.equal(events.length, 1);
    hook.enable();
    new AsyncResource('Idem');
    assert.equal(events.length, 2);
  });
});

test('hook callbacks are called with the hook as this', () => {
  let self;
  const hook = createHook({
    init(id, type) {
      if (type === 'This') self = this;
    },
  });
  try {
    hook.enable();
    new AsyncResource('This');
  } finally {
    hook.disable();
  }
  assert.equal(self, hook);
});

// --- AsyncResource events ----------------------------------------------------

test('init, before, after for an AsyncResource, in order, with ids',
     async () => {
       const seen = [];
       let resourceSeen;
       const hook = createHook({
         init(id, type, trigger, resource) {
           if (type !== 'Events') return;
           resourceSeen = resource;
           seen.push(['init', id, trigger, executionAsyncId()]);
         },
         before(id) {
           seen.push(['before', id, executionAsyncId(), triggerAsyncId()]);
         },
         after(id) {
           seen.push(['after', id, executionAsyncId()]);
         },
       });
       await withHooks(hook.enable(), () => {
         const creator = executionAsyncId();
         const resource = new AsyncResource('Events', {triggerAsyncId: 77});
         const id = resource.asyncId();
         seen.length = 0;
         resourceSeen = undefined;
         const r2 = new AsyncResource('Events');
         assert.equal(resourceSeen, r2);
         assert.deepEqual(seen, [['init', r2.asyncId(), creator, creator]]);
         seen.length = 0;
         resource.runInAsyncScope(() => seen.push(['fn', executionAsyncId()]));
         assert.deepEqual(seen, [
           ['before', id, id, 77], ['fn', id], ['after', id, id],
         ]);
       });
     });

test('after is emitted when the scope function throws', async () => {
  const {hook, events} = recorder((type) => type === 'Throws');
  await withHooks(hook.enable(), () => {
    const resource = new AsyncResource('Throws');
    const id = resource.asyncId();
    assert.throws(() => resource.runInAsyncScope(() => {
      throw new Error('x');
    }), /x/);
    assert.deepEqual(events, [
      ['init', id, 'Throws', executionAsyncId()], ['before', id],
      ['after', id],
    ]);
  });
});

test('destroy is emitted asynchronously after emitDestroy, once', async () => {
  const {hook, events} = recorder((type) => type === 'Destroyed');
  await withHooks(hook.enable(), async () => {
    const creator = executionAsyncId();
    const resource = new AsyncResource('Destroyed');
    const id = resource.asyncId();
    resource.emitDestroy();
    resource.emitDestroy();  // Node would emit a second destroy here.
    assert.deepEqual(events.map((e) => e[0]), ['init']);
    await tick(5);
    assert.deepEqual(events, [['init', id, 'Destroyed', creator],
                              ['destroy', id]]);
  });
});

test('destroy is not emitted when no destroy hook is enabled at emitDestroy',
     async () => {
       const {hook, events} = recorder((type) => type === 'Late');
       const resource = new AsyncResource('Late');
       resource.emitDestroy();
       await withHooks(hook.enable(), async () => {
         await tick(5);
         assert.deepEqual(events, []);
       });
     });

test('requireManualDestroy resources report destroy through emitDestroy',
     async () => {
       const {hook, events} = recorder((type) => type === 'Manual');
       await withHooks(hook.enable(), async () => {
         const resource = new AsyncResource('Manual',
                                            {requireManualDestroy: true});
         resource.emitDestroy();
         await tick(5);
         assert.deepEqual(events.map((e) => e.slice(0, 2)), [
           ['init', resource.asyncId()], ['destroy', resource.asyncId()],
         ]);
       });
     });

test('an empty type with an init hook enabled throws ERR_ASYNC_TYPE',
     async () => {
       const hook = createHook({init() {}});
       await withHooks(hook.enable(), () => {
         const err = assert.throws(() => new AsyncResource(''), TypeError);
         assert.equal(err.code, 'ERR_ASYNC_TYPE');
         assert.equal(err.message, 'Invalid name for async "type": ');
       });
       // Without an init hook an empty type is fine.
       const before = createHook({before() {}});
       await withHooks(before.enable(), () => {
         assert.equal(typeof new AsyncResource('').asyncId(), 'number');
       });
     });

test('AsyncResource.bind reports the function name, the given type, or ' +
         'bound-anonymous-fn',
     async () => {
       const types = new Map();
       const hook = createHook({
         init(id, type, trigger, resource) {
           types.set(resource, type);
         },
       });
       await withHooks(hook.enable(), () => {
         const named = AsyncResource.bind(function namedFunction() {});
         const typed = AsyncResource.bind(() => {}, 'GivenType');
         const anonymous = AsyncResource.bind((() => () => {})());
         assert.equal(types.get(named.asyncResource), 'namedFunction');
         assert.equal(types.get(typed.asyncResource), 'GivenType');
         assert.equal(types.get(anonymous.asyncResource), 'bound-anonymous-fn');
       });
     });

// --- host resources: Timeout and Immediate ----------------------------------

test('init, before, after, destroy for a Timeout', async () => {
  const resources = new Map();
  const {hook, events} = recorder((type, resource) => {
    if (type !== 'Timeout') return false;
    resources.set(resource, true);
    return true;
  });
  await withHooks(hook.enable(), async () => {
    const setter = executionAsyncId();
    let inside;
    const timer = setTimeout(() => {
      inside = executionAsyncId();
    }, 1);
    assert(resources.has(timer), 'init resource is the Timeout object');
    const id = events.find((e) => e[0] === 'init' && resources.has(timer))[1];
    await until(() => events.some((e) => e[0] === 'destroy' && e[1] === id));
    assert.equal(inside, id);
    const mine = events.filter((e) => e[1] === id);
    assert.deepEqual(mine, [
      ['init', id, 'Timeout', setter], ['before', id], ['after', id],
      ['destroy', id],
    ]);
  });
});

test('a cleared Timeout reports init and destroy, no before', async () => {
  let capture = false;
  const made = [];
  const events = [];
  const isMine = (id) => made.some(([madeId]) => madeId === id);
  const hook = createHook({
    init(id, type, trigger, resource) {
      if (capture && type === 'Timeout') made.push([id, resource]);
    },
    before(id) {
      if (isMine(id)) events.push(['before', id]);
    },
    after(id) {
      if (isMine(id)) events.push(['after', id]);
    },
    destroy(id) {
      if (isMine(id)) events.push(['destroy', id]);
    },
  });
  await withHooks(hook.enable(), async () => {
    capture = true;
    const timer = setTimeout(() => {}, 1);
    capture = false;
    assert.equal(made.length, 1);
    assert.equal(made[0][1], timer);
    clearTimeout(timer);
    await until(() => events.length > 0);
    await tick();  // nothing else may follow
    assert.deepEqual(events, [['destroy', made[0][0]]]);
  });
});

test('an interval reports before/after for every firing and destroy once ' +
         'cleared',
     async () => {
       const {hook, events} = recorder((type) => type === 'Timeout');
       await withHooks(hook.enable(), async () => {
         let count = 0;
         let intervalId;
         await new Promise((resolve) => {
           const interval = setInterval(() => {
             intervalId = executionAsyncId();
             if (++count === 3) {
               clearInterval(interval);
               resolve();
             }
           }, 1);
         });
         await until(() => events.some((e) => e[0] === 'destroy' &&
                                              e[1] === intervalId));
         const mine = events.filter((e) => e[1] === intervalId)
             .map((e) => e[0]);
         assert.deepEqual(mine, ['init', 'before', 'after', 'before', 'after',
                                 'before', 'after', 'destroy']);
       });
     });

test('init, before, after, destroy for an Immediate', async () => {
  let immediate;
  const initResources = new Map();
  const {hook, events} = recorder((type, resource, id) => {
    if (type !== 'Immediate') return false;
    initResources.set(id, resource);
    return true;
  });
  await withHooks(hook.enable(), async () => {
    const setter = executionAsyncId();
    let inside;
    let resourceInside;
    await new Promise((resolve) => {
      immediate = setImmediate(() => {
        inside = executionAsyncId();
        resourceInside = executionAsyncResource();
        resolve();
      });
    });
    await tick(5);
    assert.equal(resourceInside, immediate);
    assert.equal(initResources.get(inside), immediate);
    const mine = events.filter((e) => e[1] === inside);
    assert.deepEqual(mine, [
      ['init', inside, 'Immediate', setter], ['before', inside],
      ['after', inside], ['destroy', inside],
    ]);
  });
});

// --- promises ----------------------------------------------------------------

test('init PROMISE with the parent promise as trigger', async () => {
  const promiseIds = new Map();
  const triggers = new Map();
  const hook = createHook({
    init(id, type, trigger, resource) {
      if (type !== 'PROMISE') return;
      promiseIds.set(resource, id);
      triggers.set(id, trigger);
    },
  });
  await withHooks(hook.enable(), async () => {
    const current = executionAsyncId();
    const parent = new Promise((resolve) => setTimeout(resolve, 1));
    const child = parent.then(() => {});
    const grandchild = child.catch(() => {});
    const parentId = promiseIds.get(parent);
    const childId = promiseIds.get(child);
    assert.equal(typeof parentId, 'number');
    assert.equal(typeof childId, 'number');
    assert.notEqual(parentId, childId);
    assert.equal(triggers.get(parentId), current);
    assert.equal(triggers.get(childId), parentId);
    assert.equal(triggers.get(promiseIds.get(grandchild)), childId);
    await grandchild;
  });
});

test('before and after around a promise reaction, with its ids inside',
     async () => {
       const promiseIds = new Map();
       const events = [];
       const hook = createHook({
         init(id, type, trigger, resource) {
           if (type === 'PROMISE') promiseIds.set(resource, id);
         },
         before(id) {
           events.push(['before', id]);
         },
         after(id) {
           events.push(['after', id]);
         },
       });
       await withHooks(hook.enable(), async () => {
         let resolve;
         const parent = new Promise((r) => {
           resolve = r;
         });
         let inside;
         const child = parent.then(() => {
           inside = [executionAsyncId(), triggerAsyncId(),
                     executionAsyncResource()];
           events.push(['callback']);
         });
         const childId = promiseIds.get(child);
         resolve();
         await child;
         assert.deepEqual(inside, [childId, promiseIds.get(parent), child]);
         const around = events.filter((e) => e[1] === childId || e.length === 1);
         assert.deepEqual(around, [['before', childId], ['callback'],
                                   ['after', childId]]);
       });
     });

test('await reports before and after and restores the ids', async () => {
  const {hook, events} = recorder((type) => type === 'PROMISE',
                                  ['init', 'before', 'after']);
  await withHooks(hook.enable(), async () => {
    const outer = executionAsyncId();
    async function f() {
      await null;
      return executionAsyncId();
    }
    const inner = await f();
    assert.notEqual(inner, outer);
    assert(events.some((e) => e[0] === 'before' && e[1] === inner),
           'a before event for the await continuation');
    assert(events.some((e) => e[0] === 'after' && e[1] === inner),
           'an after event for the await continuation');
  });
});

test('promiseResolve is emitted when a promise resolves', async () => {
  const promiseIds = new Map();
  const resolved = [];
  const hook = createHook({
    init(id, type, trigger, resource) {
      if (type === 'PROMISE') promiseIds.set(resource, id);
    },
    promiseResolve(id) {
      resolved.push(id);
    },
  });
  await withHooks(hook.enable(), async () => {
    let resolve;
    const promise = new Promise((r) => {
      resolve = r;
    });
    const id = promiseIds.get(promise);
    assert(!resolved.includes(id));
    resolve('value');
    assert(resolved.includes(id), 'promiseResolve is synchronous');
    let reject;
    const rejected = new Promise((_, r) => {
      reject = r;
    });
    rejected.catch(() => {});
    reject(new Error('x'));
    assert(resolved.includes(promiseIds.get(rejected)),
           'rejection counts as resolution');
    const child = promise.then(() => 1);
    await child;
    assert(resolved.includes(promiseIds.get(child)));
  });
});

test('a reaction to a promise made before the hook is reported with the ' +
         'id of the reaction promise', async () => {
  const before = Promise.resolve(1);
  const {hook, events} = recorder(() => true, ['init', 'before']);
  await withHooks(hook.enable(), async () => {
    const idBefore = executionAsyncId();
    let inside;
    await before.then(() => {
      inside = executionAsyncId();
    });
    // The reaction's promise was made with the hook on, so it is tracked.
    assert.notEqual(inside, idBefore);
    assert(events.some((e) => e[0] === 'before' && e[1] === inside));
  });
});

// --- queueMicrotask ----------------------------------------------------------

test('queueMicrotask reports a Microtask resource while hooks are enabled',
     async () => {
       let resourceSeen;
       const {hook, events} = recorder((type, resource) => {
         if (type !== 'Microtask') return false;
         resourceSeen = resource;
         return true;
       });
       await withHooks(hook.enable(), async () => {
         const setter = executionAsyncId();
         let inside;
         await new Promise((resolve) => queueMicrotask(() => {
           inside = [executionAsyncId(), triggerAsyncId(),
                     executionAsyncResource()];
           resolve();
         }));
         await tick(5);
         const id = events[0][1];
         assert.deepEqual(events, [
           ['init', id, 'Microtask', setter], ['before', id], ['after', id],
           ['destroy', id],
         ]);
         assert.deepEqual(inside.slice(0, 2), [id, setter]);
         assert.equal(inside[2], resourceSeen);
       });
     });

test('queueMicrotask with hooks still runs in the caller frame', async () => {
  const als = new AsyncLocalStorage();
  const hook = createHook({init() {}});
  await withHooks(hook.enable(), async () => {
    const seen = await new Promise((resolve) => als.run('hooked', () => {
      queueMicrotask(() => resolve(als.getStore()));
    }));
    assert.equal(seen, 'hooked');
  });
});

test('a microtask queued before a hook was enabled is not reported',
     async () => {
       const {hook, events} = recorder((type) => type === 'Microtask');
       let ran = false;
       queueMicrotask(() => {
         ran = true;
       });
       await withHooks(hook.enable(), async () => {
         await tick();
         assert(ran);
         assert.deepEqual(events, []);
       });
     });

// --- changing hooks from inside hooks ----------------------------------------

test('enabling a hook inside a hook callback takes effect at the next event',
     async () => {
       const log = [];
       const second = createHook({
         init(id, type) {
           if (type === 'Nested') log.push(['second init', id]);
         },
         before(id) {
           log.push(['second before', id]);
         },
       });
       const first = createHook({
         init(id, type) {
           if (type !== 'Nested') return;
           log.push(['first init', id]);
           second.enable();
         },
       });
       await withHooks([first, second], () => {
         first.enable();
         const r1 = new AsyncResource('Nested');
         const r2 = new AsyncResource('Nested');
         r1.runInAsyncScope(() => {});
         const [id1, id2] = [r1.asyncId(), r2.asyncId()];
         assert.deepEqual(log, [
           ['first init', id1], ['first init', id2], ['second init', id2],
           ['second before', id1],
         ]);
       });
     });

test('disabling a hook inside a hook callback takes effect at the next event',
     async () => {
       const log = [];
       let second;
       const first = createHook({
         init(id, type) {
           if (type !== 'Disabling') return;
           log.push('first');
           second.disable();
         },
       });
       second = createHook({
         init(id, type) {
           if (type === 'Disabling') log.push('second');
         },
       });
       await withHooks([first, second], () => {
         first.enable();
         second.enable();
         new AsyncResource('Disabling');
         new AsyncResource('Disabling');
         assert.deepEqual(log, ['first', 'second', 'first']);
       });
     });

test('a hook disabling itself in before still gets no after', async () => {
  const log = [];
  const hook = createHook({
    before(id) {
      log.push('before');
      hook.disable();
    },
    after() {
      log.push('after');
    },
  });
  await withHooks(hook, () => {
    hook.enable();
    new AsyncResource('Self').runInAsyncScope(() => log.push('fn'));
    assert.deepEqual(log, ['before', 'fn']);
  });
});

test('executionAsyncId inside init is the creator\'s id', async () => {
  let inInit;
  const hook = createHook({
    init(id, type) {
      if (type === 'Creator') inInit = [executionAsyncId(), id];
    },
  });
  await withHooks(hook.enable(), () => {
    const parent = new AsyncResource('Parent');
    const child = parent.runInAsyncScope(() => new AsyncResource('Creator'));
    assert.deepEqual(inInit, [parent.asyncId(), child.asyncId()]);
  });
});

// --- hooks together with stores ----------------------------------------------

test('thenables inside run keep the store while promise hooks are enabled',
     async () => {
       const als = new AsyncLocalStorage();
       const hook = createHook({init() {}, before() {}, after() {}});
       await withHooks(hook.enable(), async () => {
         const seen = [];
         const thenable = {
           then(resolve) {
             seen.push(als.getStore());
             resolve(executionAsyncId());
           },
         };
         const result = await als.run('hooked', async () => {
           const idInThen = await thenable;
           return [idInThen, als.getStore()];
         });
         assert.deepEqual(seen, ['hooked']);
         assert.equal(result[1], 'hooked');
         assert.equal(typeof result[0], 'number');
       });
     });

test('disabling every hook inside a promise reaction restores the ids',
     async () => {
       const control = await Promise.resolve().then(
           () => [executionAsyncId(), triggerAsyncId()]);
       const hook = createHook({init() {}, before() {}, after() {}});
       hook.enable();
       let inside;
       const reaction = Promise.resolve().then(() => {
         inside = executionAsyncId();
         hook.disable();
       });
       await reaction;
       const after = await Promise.resolve().then(
           () => [executionAsyncId(), triggerAsyncId()]);
       assert.notEqual(inside, control[0]);
       assert.deepEqual(after, control);
     });

test('enabling a hook inside a promise reaction reports later promises only',
     async () => {
       const promises = new Map();
       const hook = createHook({
         init(id, type, trigger, resource) {
           if (type === 'PROMISE') promises.set(resource, id);
         },
       });
       await withHooks(hook, async () => {
         let later;
         const first = Promise.resolve().then(() => {
           hook.enable();
           later = Promise.resolve();
         });
         await first;
         assert.equal(promises.has(first), false);
         assert.equal(typeof promises.get(later), 'number');
       });
     });

test('a timer set inside a tracked promise reaction is triggered by the ' +
         'promise',
     async () => {
       const promises = new Map();
       const timers = new Map();
       const hook = createHook({
         init(id, type, trigger, resource) {
           if (type === 'PROMISE') promises.set(resource, id);
           if (type === 'Timeout') timers.set(resource, trigger);
         },
       });
       await withHooks(hook.enable(), async () => {
         let timer;
         let reactionId;
         const reaction = Promise.resolve().then(() => {
           reactionId = executionAsyncId();
           timer = setTimeout(() => {}, 0);
         });
         await reaction;
         assert.equal(reactionId, promises.get(reaction));
         assert.equal(timers.get(timer), reactionId);
       });
     });

test('a reaction queued in a store before any hook was enabled gets its ids ' +
         'when it runs, and its after',
     async () => {
       const als = new AsyncLocalStorage();
       const events = [];
       let inside;
       let reaction;
       // Made in a frame while no hook is enabled: the promise carries its
       // frame, no ids yet.
       als.run('store', () => {
         reaction = Promise.resolve().then(() => {
           inside = [executionAsyncId(), triggerAsyncId(), als.getStore()];
         });
       });
       const hook = createHook({
         before(id) {
           events.push(['before', id]);
         },
         after(id) {
           events.push(['after', id]);
         },
       });
       const outside = executionAsyncId();
       await withHooks(hook.enable(), async () => {
         await reaction;
       });
       const id = inside[0];
       assert.notEqual(id, outside);
       assert(Number.isSafeInteger(inside[1]), `trigger ${inside[1]}`);
       assert.equal(inside[2], 'store');
       const mine = events.filter((e) => e[1] === id);
       assert.deepEqual(mine, [['before', id], ['after', id]]);
     });

test('a reaction queued at the root before any hook was enabled gets its ids ' +
         'when it runs, and its after',
     async () => {
       const events = [];
       let inside;
       // Made at the root frame: the promise carries nothing yet.
       const reaction = Promise.resolve().then(() => {
         inside = [executionAsyncId(), triggerAsyncId()];
       });
       const hook = createHook({
         before(id) {
           events.push(['before', id]);
         },
         after(id) {
           events.push(['after', id]);
         },
       });
       await withHooks(hook.enable(), async () => {
         await reaction;
       });
       const id = inside[0];
       assert(Number.isSafeInteger(inside[1]), `trigger ${inside[1]}`);
       assert.deepEqual(events.filter((e) => e[1] === id),
                        [['before', id], ['after', id]]);
     });
