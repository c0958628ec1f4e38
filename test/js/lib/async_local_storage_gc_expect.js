// args: --expose-gc
// expect-exit: 0
// expect-stdout: ^sync runs: 1000000, last store seen: 999999$
// expect-stdout: ^sync stores collected: 100/100, still reachable: 0$
// expect-stdout: ^async microtask sum: 4999950000$
// expect-stdout: ^async stores collected: 100/100, still reachable: 0$
// expect-stdout: ^held by a pending timer: als alive true, store alive true$
// expect-stdout: ^timer saw its store: true$
// expect-stdout: ^after the timer: als collected true, store collected true$
// expect-stdout: ^FinalizationRegistry callback: ran true, store undefined, variable undefined$
// expect-stdout: ^done$
//
// Memory: 1e6 sequential AsyncLocalStorage runs with distinct large stores
// retain nothing once they are over (sampled through FinalizationRegistry
// and WeakRef), a store used by async work is released once that work is
// done, and an AsyncLocalStorage instance that becomes unreachable is
// collected with its stores once no frame (here: a pending timer) refers to
// it. FinalizationRegistry callbacks run in the frame in which the registry
// was constructed (here the root), not in the one of the registration
// (finalization_registry_gc_expect.js).
//
// Each part counts the registry's callbacks from before it registers its
// first store, and keeps a WeakRef to each: stores may be collected by the
// GCs V8 runs while a loop allocates, and their callbacks then run at the
// first task after it. (V8 14.6, and Node 26 with its own
// AsyncLocalStorage, collect about 95 of asyncRuns' stores that way, so a
// count reset after that task saw 2-6/100 there: the test's bookkeeping,
// not a leak; V8 10.2 does the same with a gc() after each batch.) The
// WeakRefs keep their targets until the end of the microtask checkpoint
// that made them, then show what is still reachable after collect().

'use strict';

const log = console.log;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

let collected = 0;
const registry = new FinalizationRegistry(() => {
  collected++;
});

async function collect() {
  // WeakRef targets stay alive until the end of the job that created or
  // dereferenced them, and FinalizationRegistry callbacks run from a task:
  // collect from fresh tasks, twice.
  await tick();
  gc();
  await tick();
  gc();
  await tick(5);
}

async function syncRuns() {
  const als = new AsyncLocalStorage();
  const refs = [];
  let last;
  collected = 0;
  for (let i = 0; i < 1e6; i++) {
    const store = {index: i, payload: new Array(32).fill(i)};
    if (i % 10000 === 0) {
      registry.register(store, i);
      refs.push(new WeakRef(store));
    }
    last = als.run(store, () => als.getStore().index);
  }
  log(`sync runs: 1000000, last store seen: ${last}`);
  await collect();
  const alive = refs.filter((ref) => ref.deref() !== undefined).length;
  log(`sync stores collected: ${collected}/100, still reachable: ${alive}`);
}

async function asyncRuns() {
  const als = new AsyncLocalStorage();
  const refs = [];
  let pending = [];
  let sum = 0;
  collected = 0;
  for (let i = 0; i < 1e5; i++) {
    const store = {index: i, payload: new Array(32).fill(i)};
    if (i % 1000 === 0) {
      registry.register(store, i);
      refs.push(new WeakRef(store));
    }
    pending.push(als.run(store, async () => {
      await null;
      queueMicrotask(() => {
        sum += als.getStore().index;
      });
      return als.getStore().index;
    }));
    if (pending.length === 1000) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  pending = null;
  await tick();
  log(`async microtask sum: ${sum}`);
  await collect();
  const alive = refs.filter((ref) => ref.deref() !== undefined).length;
  log(`async stores collected: ${collected}/100, still reachable: ${alive}`);
}

async function unreachableInstance() {
  let alsRef;
  let storeRef;
  let timerFired = false;
  let timerDone;
  const timerRan = new Promise((resolve) => {
    timerDone = resolve;
  });
  function checkStore() {
    const als = alsRef.deref();
    timerFired = als !== undefined && als.getStore() === storeRef.deref();
    timerDone();
  }
  // Created in a timer callback, so enterWith ends with the callback; only
  // the timer scheduled inside keeps the frame (and so the instance) alive.
  await new Promise((resolve) => setTimeout(() => {
    const als = new AsyncLocalStorage();
    const store = {payload: new Array(1000).fill(1)};
    alsRef = new WeakRef(als);
    storeRef = new WeakRef(store);
    als.enterWith(store);
    // The callback must not close over als or store: only the frame the
    // timer captured may keep them alive.
    setTimeout(checkStore, 300);
    resolve();
  }, 0));
  await collect();
  log(`held by a pending timer: als alive ${alsRef.deref() !== undefined}, ` +
      `store alive ${storeRef.deref() !== undefined}`);
  await timerRan;
  log(`timer saw its store: ${timerFired}`);
  await collect();
  log(`after the timer: als collected ${alsRef.deref() === undefined}, ` +
      `store collected ${storeRef.deref() === undefined}`);
}

async function finalizationFrame() {
  const als = new AsyncLocalStorage();
  const v = new AsyncContext.Variable();
  let seen;
  const fr = new FinalizationRegistry(() => {
    seen = [als.getStore(), v.get()];
  });
  als.run('registered in a store', () => v.run('and a variable', () => {
    fr.register({payload: new Array(100)}, 'held');
  }));
  await collect();
  log(`FinalizationRegistry callback: ran ${seen !== undefined}, ` +
      `store ${seen && seen[0]}, variable ${seen && seen[1]}`);
}

(async () => {
  await syncRuns();
  await asyncRuns();
  await unreachableInstance();
  await finalizationFrame();
  log('done');
})();
