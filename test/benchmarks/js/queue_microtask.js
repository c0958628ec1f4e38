// Copyright 2026 the asyncctx authors. All rights reserved.
//
// queueMicrotask in the shapes of Node.js's
// benchmark/process/queue-microtask-breadth.js (n = 4e5, all queued from one
// loop) and queue-microtask-depth.js (n = 1.2e6, each callback queues the
// next), with no store and inside AsyncLocalStorage#run, and with
// an init hook enabled (report only).
//
//   out/Default/asyncctx_shell --bench-natives \
//       test/benchmarks/js/harness.js test/benchmarks/js/queue_microtask.js
//   test/benchmarks/js/compare_hosts.py --runs 1 test/benchmarks/js/queue_microtask.js
//       (the shell and Node, each running harness.js + this file)
//
// The floor is V8's EnqueueMicrotask through a bare native binding; the
// shell exposes it as benchNatives.enqueueMicrotask. Where that is missing
// (Node, or a shell without it) the baseline is a reaction on an already
// resolved promise (`resolved.then(cb)`), which allocates a promise per task
// and so runs slower than the floor; the output says which baseline ran, and
// the targets apply only to the native floor.
//
// The first als.run of a context installs promise hooks that stay (here the
// thenable repair, in Node the ALS hooks), and they slow the promise
// baseline, so the no-store phase runs first and later phases are compared
// with its baseline.
//
// Targets (against the native floor): no store >= 0.9x; inside run
// >= 0.5x.

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');
const createHook = globalThis.asyncHooks?.createHook ??
    (typeof require === 'function' ? require('async_hooks').createHook :
                                     undefined);

const BREADTH = 4e5;
const DEPTH = 1.2e6;
const als = new AsyncLocalStorage();
const nativeEnqueue = globalThis.benchNatives?.enqueueMicrotask;
const resolved = Promise.resolve();
const enqueue = nativeEnqueue ?? ((cb) => { resolved.then(cb); });
const baselineName = nativeEnqueue ?
    'native floor (benchNatives.enqueueMicrotask)' :
    'resolved.then(cb) (no native floor here)';

function breadthWith(queue) {
  return (n) => new Promise((resolve) => {
    let count = 0;
    function cb() {
      if (++count === n) resolve();
    }
    for (let i = 0; i < n; i++) queue(cb);
  });
}
function depthWith(queue) {
  return (n) => new Promise((resolve) => {
    let count = 0;
    function cb() {
      if (++count === n) resolve();
      else queue(cb);
    }
    queue(cb);
  });
}
const breadth = breadthWith(queueMicrotask);
const depth = depthWith(queueMicrotask);
const breadthBase = breadthWith(enqueue);
const depthBase = depthWith(enqueue);
const inRun = (shape) => (n) => als.run({id: 1}, shape, n);

(async () => {
  console.log(`queue_microtask.js on ${host}; baseline: ${baselineName}`);
  const floorTarget = (t) => (nativeEnqueue ? t : undefined);
  // Phase 1: no store has ever been entered.
  const b1 = await timeShapes(BREADTH, {breadth, breadthBase});
  const d1 = await timeShapes(DEPTH, {depth, depthBase});
  line('breadth, no store', b1.breadth, 'baseline', b1.breadthBase,
       floorTarget(0.9));
  line('depth, no store', d1.depth, 'baseline', d1.depthBase,
       floorTarget(0.9));
  // Phase 2: inside run.
  const b2 = await timeShapes(BREADTH, {breadthInRun: inRun(breadth), breadthBase});
  const d2 = await timeShapes(DEPTH, {depthInRun: inRun(depth), depthBase});
  line('breadth, inside run', b2.breadthInRun, 'phase-1 baseline',
       b1.breadthBase, floorTarget(0.5));
  line('depth, inside run', d2.depthInRun, 'phase-1 baseline', d1.depthBase,
       floorTarget(0.5));
  if (!nativeEnqueue) {
    console.log(`  (the promise baseline after a run: breadth ` +
                `${b2.breadthBase.toFixed(1)} ns, depth ${d2.depthBase.toFixed(1)} ns)`);
  }
  // Phase 3: an init hook enabled, no store.
  if (createHook) {
    createHook({init() {}}).enable();
    const b3 = await timeShapes(BREADTH, {breadth});
    const d3 = await timeShapes(DEPTH, {depth});
    line('breadth, init hook enabled', b3.breadth, 'phase-1 baseline',
         b1.breadthBase);
    line('depth, init hook enabled', d3.depth, 'phase-1 baseline',
         d1.depthBase);
  }
})();
