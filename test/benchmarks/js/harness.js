// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The timing harness of the JavaScript benchmarks in this folder: a classic
// script that runs before each of them, in the same global scope, and
// defines `host`, compare()/report() (synchronous loops) and
// timeShapes()/line() (asynchronous shapes). The shell takes both files in
// order (`asyncctx_shell harness.js get_store.js`); compare_hosts.py runs
// the two concatenated, as one script, in every host, so each host compiles
// the benchmark's loops exactly as if the harness were part of the file.
//
// Both timers interleave the measured functions and keep the fastest round
// of each: other processes only ever add time, so on a shared machine the
// minimum is the stable estimate. The lines they print have the form
//
//   <name>: <ops/s> (<ns> ns) | <baseline> ... ratio <r>x ...
//
// which compare_hosts.py reads.

'use strict';

/** The host's name and version, for the first line of the output. */
const host = globalThis.Deno ? `deno ${Deno.version.deno}` :
    globalThis.Bun ? `bun ${Bun.version}` :
    globalThis.navigator?.userAgent === 'Cloudflare-Workers' ? 'workerd' :
    typeof process === 'object' && process.versions?.node ?
    `node ${process.version}` :
    'asyncctx_shell';

/**
 * Multiplies every round's operation count: compare_hosts.py sets it to 10
 * for workerd, whose clock ticks in 1 ms steps, so a round lasts well over a
 * tick there.
 */
const roundScale = globalThis.benchRoundScale ?? 1;

const now = () => performance.now();

/**
 * Runs ours(n) and baseline(n) alternately, `rounds` times after `warmup`
 * rounds, and keeps the fastest round of each. Returns ns/op of both and
 * their ratio baseline/ours (1.0: as fast as the baseline).
 */
function compare(n, ours, baseline, rounds = 15, warmup = 3) {
  n = Math.ceil(n * roundScale);
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

/** Prints one result of compare(), with its target ratio if it has one. */
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

/**
 * Times `rounds` runs of each async function in `shapes` ({name: fn(n)}),
 * interleaved, after `warmup` rounds, and keeps the fastest round of each.
 * Returns {name: ns/op}.
 */
async function timeShapes(n, shapes, rounds = 9, warmup = 2) {
  n = Math.ceil(n * roundScale);
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

/**
 * Prints `ns` against `baselineNs` (a time from timeShapes()), with the
 * target ratio if it has one.
 */
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
