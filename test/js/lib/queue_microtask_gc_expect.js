// args: --expose-gc
// expect-exit: 0
// expect-stdout: \Aran: 2\ncallbacks collected: true,true\n\Z
//
// queueMicrotask's FIFO of callbacks (used in a store) keeps a callback
// only until it runs: once both ran, nothing refers to them, and a GC
// collects them (as async_local_storage_gc_expect.js checks for the stores).

'use strict';

const log = console.log;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
const als = new AsyncLocalStorage();
let ran = 0;
let refs;
als.run('store', () => {
  const first = () => ran++;
  const second = () => ran++;
  refs = [new WeakRef(first), new WeakRef(second)];
  queueMicrotask(first);
  queueMicrotask(second);
});

(async () => {
  // The WeakRefs keep their targets until the end of the checkpoint that
  // made them.
  for (let i = 0; i < 3; i++) {
    await tick();
    gc();
  }
  await tick(1);
  log(`ran: ${ran}`);
  log(`callbacks collected: ${refs.map((ref) => ref.deref() === undefined)}`);
})();
