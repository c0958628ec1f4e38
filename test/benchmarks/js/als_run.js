// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage#run(store, fn) with an empty fn, 1e6 times per round, and
// run + getStore inside (issue 4: at least as fast as Node 18's run, 33 ns on
// this machine; run + getStore 10x faster than Node 24's ~850 ns).
//
//   out/Default/asyncctx_shell test/benchmarks/js/als_run.js
//   node test/benchmarks/js/als_run.js
//
// The ratio is against an empty function call measured in the same run:
// benchNatives.emptyFunction (a native no-op) where the host has it, else an
// empty JavaScript function (inlined by TurboFan: an empty loop). The issue's
// targets are absolute times here, so the output prints them too; compare
// hosts by running the file under both.

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

// --- Shared by the files in this folder (each file runs on its own). ------
const host = typeof process === 'object' && process.versions?.node ?
    `node ${process.version}` :
    'asyncctx_shell';
const now = () => performance.now();
// Runs ours(n) and baseline(n) alternately, `rounds` times after `warmup`
// rounds, and keeps the fastest round of each: other processes only ever add
// time, so on a shared machine the minimum is the stable estimate. Returns
// ns/op of both and their ratio baseline/ours (1.0: as fast as the baseline).
function compare(n, ours, baseline, rounds = 15, warmup = 3) {
  let bestOurs = Infinity;
  let bestBase = Infinity;
  for (let r = 0; r < warmup + rounds; r++) {
    const oursFirst = r % 2 === 0;
    let t = now();
    (oursFirst ? ours : baseline)(n);
    const t1 = now() - t;
    t = now();
    (oursFirst ? baseline : ours)(n);
    const t2 = now() - t;
    if (r < warmup) continue;
    bestOurs = Math.min(bestOurs, (oursFirst ? t1 : t2) * 1e6 / n);
    bestBase = Math.min(bestBase, (oursFirst ? t2 : t1) * 1e6 / n);
  }
  return {ours: bestOurs, base: bestBase, ratio: bestBase / bestOurs};
}
function report(name, result, baselineName, target) {
  const mops = (ns) => (1e3 / ns).toFixed(1) + 'M ops/s';
  let line = `${name}: ${mops(result.ours)} (${result.ours.toFixed(1)} ns)` +
      ` | ${baselineName}: ${mops(result.base)} (${result.base.toFixed(1)} ns)` +
      ` | ratio ${result.ratio.toFixed(2)}x`;
  if (target !== undefined) {
    line += ` (target >= ${target}x: ${result.ratio >= target ? 'met' : 'MISSED'})`;
  }
  console.log(line);
}
// ---------------------------------------------------------------------------

const N = 1e6;
const als = new AsyncLocalStorage();
const nativeEmpty = globalThis.benchNatives?.emptyFunction;
function jsEmpty() {}
const empty = nativeEmpty ?? jsEmpty;
const baselineName = nativeEmpty ? 'empty native call (benchNatives.emptyFunction)' :
                                   'empty JS function call (inlined; no native floor here)';

let sink;
function noop() {}
function getStoreOnce() { return als.getStore(); }
function runLoop(n) {
  const store = {id: 1};
  for (let i = 0; i < n; i++) als.run(store, noop);
}
function runGetStoreLoop(n) {
  const store = {id: 1};
  let s;
  for (let i = 0; i < n; i++) s = als.run(store, getStoreOnce);
  sink = s;
}
// The row: run + getStore in two nested instances.
const als2 = new AsyncLocalStorage();
function innerGet() { return als.getStore() === als2.getStore(); }
function outerRun(store2) { return als2.run(store2, innerGet); }
function nestedRunGetStoreLoop(n) {
  const store = {id: 1};
  const store2 = {id: 2};
  let s;
  for (let i = 0; i < n; i++) s = als.run(store, outerRun, store2);
  sink = s;
}
function emptyLoop(n) {
  for (let i = 0; i < n; i++) empty();
}

console.log(`als_run.js on ${host}`);
const run = compare(N, runLoop, emptyLoop);
report('run(store, emptyFn)', run, baselineName);
console.log(`  run: ${run.ours.toFixed(1)} ns per run (issue 4 target: <= 33 ns, ` +
            `Node 18's als.run on this V8): ${run.ours <= 33 ? 'met' : 'MISSED'}`);
const runGet = compare(N, runGetStoreLoop, emptyLoop);
report('run(store, () => getStore())', runGet, baselineName);
console.log(`  run + getStore: ${runGet.ours.toFixed(1)} ns (issue 4 target: ` +
            `10x faster than Node 24's ~850 ns, i.e. <= 85 ns): ` +
            `${runGet.ours <= 85 ? 'met' : 'MISSED'}`);
const nested = compare(N, nestedRunGetStoreLoop, emptyLoop);
report('run + getStore, two nested instances', nested, baselineName);
if (sink === 42) console.log('');
