// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Cost that must not grow with the work: getStore(), run() and `await`
// inside run() in a frame where 10,000 AsyncLocalStorage instances are
// entered (many libraries, each with its store), and at nesting depth
// 1,000, each against the same operation in a frame with one instance,
// measured in the same run. Target: at most 2x the one-instance cost
// (ratio >= 0.5x below).
//
//   out/Default/asyncctx_shell test/benchmarks/js/harness.js \
//       test/benchmarks/js/many_stores.js
//   test/benchmarks/js/compare_hosts.py --runs 1 test/benchmarks/js/many_stores.js

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

const WIDE = 10000;
const DEEP = 1000;
const N = 2e5;

// Calls fn inside a frame where `count` instances (besides the measured
// ones) are entered: `count` nested run() calls, so that nesting depth and
// frame width grow together.
function withEntered(count, fn) {
  const stores = [];
  for (let i = 0; i < count; i++) stores.push(new AsyncLocalStorage());
  let i = 0;
  const step = () => (i < count ? stores[i++].run(i, step) : fn());
  return step();
}

// Entered with enterWith inside one run: a wide frame, no deep stack.
function withWide(count, fn) {
  const outer = new AsyncLocalStorage();
  return outer.run(0, () => {
    for (let i = 0; i < count; i++) new AsyncLocalStorage().enterWith(i);
    return fn();
  });
}

const measured = new AsyncLocalStorage();
const unset = new AsyncLocalStorage();
let sink;

// Every case gets loops of its own (new source text, so new feedback):
// otherwise the type feedback of one case's frames would slow down the next.
let caseCount = 0;
function freshLoop(body) {
  return new Function('measured', 'unset', 'inner', 'setSink', `
    // case ${caseCount++}
    return function loop(n) {
      let s;
      for (let i = 0; i < n; i++) ${body};
      setSink(s);
    };`)(measured, unset, inner, (s) => { sink = s; });
}
function inner() { return 1; }
const getUnset = () => freshLoop('s = unset.getStore()');
const getSet = () => freshLoop('s = measured.getStore()');
const runInner = () => freshLoop('s = unset.run(i, inner)');

function compareIn(bigSetup, bigCount, makeLoop, n) {
  // Captures a function that runs a loop in the big frame and one that runs
  // a copy of it in a one-instance frame, then lets compare() alternate them.
  const big = bigSetup(bigCount, () =>
      measured.run(1, () => AsyncLocalStorage.snapshot()));
  const small = measured.run(1, () => AsyncLocalStorage.snapshot());
  const bigLoop = makeLoop();
  const smallLoop = makeLoop();
  return compare(n, (k) => big(bigLoop, k), (k) => small(smallLoop, k), 9, 2);
}

async function awaitLoop(n) {
  for (let i = 0; i < n; i++) await null;
}

async function compareAwait(bigSetup, bigCount, n) {
  const big = bigSetup(bigCount, () =>
      measured.run(1, () => AsyncLocalStorage.snapshot()));
  const small = measured.run(1, () => AsyncLocalStorage.snapshot());
  let bestBig = Infinity;
  let bestSmall = Infinity;
  for (let r = 0; r < 9; r++) {
    let t = now();
    await big(awaitLoop, n);
    bestBig = Math.min(bestBig, (now() - t) * 1e6 / n);
    t = now();
    await small(awaitLoop, n);
    bestSmall = Math.min(bestSmall, (now() - t) * 1e6 / n);
  }
  return {ours: bestBig, base: bestSmall, ratio: bestSmall / bestBig};
}

async function main() {
  console.log(`many_stores.js on ${host}`);
  const one = 'the same in a frame with 1 instance';
  report(`getStore() of an unset instance, ${WIDE} entered`,
         compareIn(withWide, WIDE, getUnset, N), one, 0.5);
  report(`getStore() of a set instance, ${WIDE} entered`,
         compareIn(withWide, WIDE, getSet, N), one, 0.5);
  report(`run(), ${WIDE} entered`, compareIn(withWide, WIDE, runInner, N), one, 0.5);
  report(`getStore() of an unset instance, depth ${DEEP}`,
         compareIn(withEntered, DEEP, getUnset, N), one, 0.5);
  report(`run(), depth ${DEEP}`, compareIn(withEntered, DEEP, runInner, N), one, 0.5);
  report(`await in run(), ${WIDE} entered`,
         await compareAwait(withWide, WIDE, N / 4), one, 0.5);
  report(`await in run(), depth ${DEEP}`,
         await compareAwait(withEntered, DEEP, N / 4), one, 0.5);
  if (sink === 'x') console.log('');
}
main();
