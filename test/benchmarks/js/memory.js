// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Memory per operation: bytes of JavaScript heap allocated per run(), per
// `await` inside run() (and per `await` outside any store, its reference),
// and bytes retained per live frame (a pending reaction made inside run(),
// which keeps run's frame, against the same reaction made outside run()).
//
//   out/v8-14.6/asyncctx_shell --bench-natives --expose-gc \
//       test/benchmarks/js/harness.js test/benchmarks/js/memory.js
//
// Each host's own numbers: ours benchNatives.heapStatistics() (V8's
// Isolate::GetHeapStatistics, --bench-natives); Node and Deno
// process.memoryUsage().heapUsed (V8's too); Bun bun:jsc's heapStats()
// through process.memoryUsage().heapUsed. A host without either prints that
// it cannot measure. A measurement is the growth of the used heap over a
// batch small enough that no collection runs inside it (a batch in which
// the heap shrank is dropped), the smallest of several batches, per
// operation; "retained" is measured after gc(). Lines read
//
//   <name>: <bytes> bytes/op

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

const heapUsed = globalThis.benchNatives?.heapStatistics ?
    () => benchNatives.heapStatistics().usedHeapSize :
    typeof process === 'object' && typeof process.memoryUsage === 'function' ?
    () => process.memoryUsage().heapUsed :
    undefined;

const als = new AsyncLocalStorage();
const other = new AsyncLocalStorage();
const store = {id: 1};
const K = 2000;
function noop() {}

// The smallest growth of the used heap per operation over `batches` batches
// of `k` operations (fn(k) runs them); batches where the heap shrank (a
// collection ran) are dropped.
async function allocated(fn, k = K, batches = 15) {
  let best = Infinity;
  for (let b = 0; b < batches + 3; b++) {
    const before = heapUsed();
    await fn(k);
    const grown = heapUsed() - before;
    if (b >= 3 && grown >= 0) best = Math.min(best, grown / k);
  }
  return best;
}

// Bytes still reachable per item after gc(), for k items that make(k)
// returns (an array that keeps them).
function retained(make, k = K) {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    gc();
    const before = heapUsed();
    const kept = make(k);
    gc();
    const grown = heapUsed() - before;
    if (kept.length !== k) throw new Error('lost items');
    if (grown >= 0) best = Math.min(best, grown / k);
  }
  return best;
}

function print(name, bytes) {
  console.log(`${name}: ${Number.isFinite(bytes) ? bytes.toFixed(1) : '?'} bytes/op`);
}

(async () => {
  console.log(`memory.js on ${host}`);
  if (heapUsed === undefined || typeof gc !== 'function') {
    console.log('cannot measure: no heap statistics or no gc() in this host');
    return;
  }
  print('run(store, noop), at the root',
        await allocated((k) => { for (let i = 0; i < k; i++) als.run(store, noop); }));
  print('run(store, noop), inside another run',
        await allocated((k) => other.run(store, () => {
          for (let i = 0; i < k; i++) als.run(store, noop);
        })));
  print('await null, no store',
        await allocated(async (k) => { for (let i = 0; i < k; i++) await null; }));
  print('await null, inside run',
        await allocated((k) => als.run(store, async () => {
          for (let i = 0; i < k; i++) await null;
        })));
  const resolvers = [];
  // A reaction keeps its frame (V8 captures it when the reaction is made).
  const pending = () =>
    new Promise((resolve) => resolvers.push(resolve)).then(noop);
  const liveOutside = retained((k) => {
    const kept = [];
    for (let i = 0; i < k; i++) kept.push(pending());
    return kept;
  });
  const liveInside = retained((k) => {
    const kept = [];
    for (let i = 0; i < k; i++) kept.push(als.run(store, pending));
    return kept;
  });
  print('live frame (a pending reaction made in run(), minus one made outside)',
        liveInside - liveOutside);
  for (const resolve of resolvers) resolve();
})();
