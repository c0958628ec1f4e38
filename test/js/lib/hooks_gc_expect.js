// args: --expose-gc
// expect-exit: 0
// expect-stdout: ^tracked resources destroyed by GC: 100/100$
// expect-stdout: ^created before the destroy hook: 0 destroyed$
// expect-stdout: ^requireManualDestroy: 0 destroyed by GC$
// expect-stdout: ^emitDestroy then GC: destroyed 1 time$
// expect-stdout: ^still reachable: 0 destroyed$
// expect-stdout: ^churn: 10000/10000 destroyed$
// expect-stdout: ^microtasks: 1000000 ran in their store, 1000000 destroyed$
// expect-stdout: ^microtask stores collected: 1000/1000$
// expect-stdout: ^done$
//
// GC-driven destroy: an AsyncResource created while a destroy hook is enabled
// (and without requireManualDestroy) reports destroy once it is collected;
// one created before any destroy hook never does; emitDestroy followed by GC
// reports once; a reachable resource is not reported. 1e6 microtasks queued
// inside runs with a destroy hook enabled all report destroy and retain
// nothing.

'use strict';

const {createHook} = asyncHooks;
const log = console.log;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

async function collect() {
  for (let i = 0; i < 3; i++) {
    await tick();
    gc();
  }
  await tick(10);
}

const destroyed = new Map();
const count = (ids) => ids.reduce((n, id) => n + (destroyed.get(id) || 0), 0);

(async () => {
  const before = [];
  for (let i = 0; i < 100; i++) before.push(new AsyncResource('Early').asyncId());

  const hook = createHook({
    destroy(id) {
      destroyed.set(id, (destroyed.get(id) || 0) + 1);
    },
  }).enable();

  const tracked = [];
  const manual = [];
  for (let i = 0; i < 100; i++) {
    tracked.push(new AsyncResource('Tracked').asyncId());
    manual.push(new AsyncResource('Manual', {requireManualDestroy: true})
                    .asyncId());
  }
  const emitted = new AsyncResource('Emitted').emitDestroy().asyncId();
  const kept = [];
  for (let i = 0; i < 10; i++) kept.push(new AsyncResource('Kept'));

  await collect();
  log(`tracked resources destroyed by GC: ${count(tracked)}/100`);
  log(`created before the destroy hook: ${count(before)} destroyed`);
  log(`requireManualDestroy: ${count(manual)} destroyed by GC`);
  log(`emitDestroy then GC: destroyed ${destroyed.get(emitted)} time`);
  log(`still reachable: ${count(kept.map((r) => r.asyncId()))} destroyed`);

  const churn = [];
  for (let i = 0; i < 10000; i++) churn.push(new AsyncResource('Churn').asyncId());
  await collect();
  log(`churn: ${count(churn)}/10000 destroyed`);
  hook.disable();
  kept.length = 0;

  const microtaskIds = new Set();
  let microtasksDestroyed = 0;
  const microHook = createHook({
    init(id, type) {
      if (type === 'Microtask') microtaskIds.add(id);
    },
    destroy(id) {
      if (microtaskIds.delete(id)) microtasksDestroyed++;
    },
  }).enable();
  const als = new AsyncLocalStorage();
  let storesCollected = 0;
  const registry = new FinalizationRegistry(() => storesCollected++);
  let ranInStore = 0;
  for (let run = 0; run < 1000; run++) {
    const store = {run, payload: new Array(100).fill(run)};
    registry.register(store, run);
    als.run(store, () => {
      for (let i = 0; i < 1000; i++) {
        queueMicrotask(() => {
          if (als.getStore() === store) ranInStore++;
        });
      }
    });
    if (run % 100 === 99) await tick();
  }
  await collect();
  log(`microtasks: ${ranInStore} ran in their store, ` +
      `${microtasksDestroyed} destroyed`);
  log(`microtask stores collected: ${storesCollected}/1000`);
  microHook.disable();
  log('done');
})();
