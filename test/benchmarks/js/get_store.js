// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage#getStore() in a loop, against an empty function call
// measured in the same run (issue 4: within 3x of an empty native call).
//
//   out/Default/asyncctx_shell test/benchmarks/js/get_store.js
//   node test/benchmarks/js/get_store.js
//
// The floor is a call of an empty native function. The shell exposes one as
// benchNatives.emptyFunction; where it is missing (Node, or a shell without
// it) the baseline is an empty JavaScript function, which TurboFan inlines:
// that baseline is an empty loop, far below a native call, and the ratio
// against it is not the ratio (the output says which one ran).

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
function getStoreLoop(n) {
  let s;
  for (let i = 0; i < n; i++) s = als.getStore();
  sink = s;
}
function emptyLoop(n) {
  for (let i = 0; i < n; i++) empty();
}

console.log(`get_store.js on ${host}`);
const inRun = als.run({id: 1}, () => compare(N, getStoreLoop, emptyLoop));
report('getStore() inside run', inRun, baselineName,
       nativeEmpty ? 0.33 : undefined);
const atRoot = compare(N, getStoreLoop, emptyLoop);
report('getStore() at the root (no store)', atRoot, baselineName);
if (sink === 42) console.log('');  // keeps `sink` observable
