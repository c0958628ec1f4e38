// Copyright 2026 the asyncctx authors. All rights reserved.
//
// 1e5 `await`s inside AsyncLocalStorage#run against 1e5 `await`s with no
// store, and the same inside 10 nested stores (issue 4).
//
//   out/Default/asyncctx_shell test/benchmarks/js/await.js
//   node test/benchmarks/js/await.js
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
// Targets (issue 4, asyncctx with the repair on): inside run >= 0.30x of the
// no-store baseline (with the repair off, >= 0.9x). Node 18: 0.20x.

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

// --- Shared by the files in this folder (each file runs on its own). ------
const host = typeof process === 'object' && process.versions?.node ?
    `node ${process.version}` :
    'asyncctx_shell';
const now = () => performance.now();
// Times `rounds` runs of each async function in `shapes` ({name: fn(n)}),
// interleaved, after `warmup` rounds, and keeps the fastest round of each
// (other processes only ever add time, so on a shared machine the minimum is
// the stable estimate); returns {name: ns/op}.
async function timeShapes(n, shapes, rounds = 9, warmup = 2) {
  const names = Object.keys(shapes);
  const best = Object.fromEntries(names.map((k) => [k, Infinity]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      const t = now();
      await shapes[name](n);
      const elapsed = now() - t;
      if (r >= warmup) best[name] = Math.min(best[name], elapsed * 1e6 / n);
    }
  }
  return best;
}
function line(name, ns, baselineName, baselineNs, target) {
  const mops = (v) => (1e3 / v).toFixed(2) + 'M ops/s';
  const ratio = baselineNs / ns;
  let text = `${name}: ${mops(ns)} (${ns.toFixed(1)} ns)` +
      ` | vs ${baselineName} (${baselineNs.toFixed(1)} ns): ratio ${ratio.toFixed(2)}x`;
  if (target !== undefined) {
    text += ` (target >= ${target}x: ${ratio >= target ? 'met' : 'MISSED'})`;
  }
  console.log(text);
}
// ---------------------------------------------------------------------------

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
