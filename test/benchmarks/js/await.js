// Copyright 2026 the asyncctx authors. All rights reserved.
//
// 1e5 `await`s inside AsyncLocalStorage#run against 1e5 `await`s with no
// store, and the same inside 10 nested stores.
//
//   out/Default/asyncctx_shell --bench-natives \
//       test/benchmarks/js/harness.js test/benchmarks/js/await.js
//   test/benchmarks/js/compare_hosts.py --runs 1 test/benchmarks/js/await.js
//       (the shell and Node, each running harness.js + this file)
//
// The first als.run of a context installs promise hooks that stay (the
// thenable repair here; Node's async_hooks-based ALS does the same while a
// store is enabled), so the baseline ("no store, before any run") is measured
// first, in a context that has never entered a store. Later phases are
// compared with it, and the "no store" baseline is measured again after the
// hooks are on, which shows what every await in the program pays from then.
// The thenable repair can only be turned off by the host
// (RuntimeOptions::thenable_repair); //test:benchmarks covers that case.
//
// Targets (asyncctx with the repair on): inside run >= 0.30x of the
// no-store baseline (with the repair off, >= 0.9x). Node 18: 0.20x.

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

const N = 1e5;
const als = new AsyncLocalStorage();
const nested = Array.from({length: 10}, () => new AsyncLocalStorage());

async function awaitLoop(n) {
  for (let i = 0; i < n; i++) await i;
}
function inRun(n) {
  return als.run({id: 1}, awaitLoop, n);
}
function inNested(n, k = 0) {
  if (k === nested.length) return awaitLoop(n);
  return nested[k].run(k, inNested, n, k + 1);
}

(async () => {
  console.log(`await.js on ${host}`);
  // Phase 1: no store has ever been entered.
  const fresh = await timeShapes(N, {noStore: awaitLoop});
  const base = fresh.noStore;
  console.log(`await, no store, before any run: ${(1e3 / base).toFixed(2)}M ops/s ` +
              `(${base.toFixed(1)} ns) [baseline]`);
  // Phase 2: after the first run.
  const after = await timeShapes(N, {inRun, noStoreAfterRun: awaitLoop});
  const label = 'no store, before any run';
  line('await inside run', after.inRun, label, base, 0.3);
  line('await, no store, after a run', after.noStoreAfterRun, label, base);
  // Phase 3: ten more stores entered (last: Node's ALS then pays per store
  // on every promise, also outside them).
  const deep = await timeShapes(N, {inNested});
  line('await inside 10 nested runs', deep.inNested, label, base, 0.3);
})();
