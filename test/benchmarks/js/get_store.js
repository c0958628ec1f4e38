// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage#getStore() in a loop, against an empty function call
// measured in the same run (target: within 3x of an empty native call).
//
//   out/Default/asyncctx_shell --bench-natives \
//       test/benchmarks/js/harness.js test/benchmarks/js/get_store.js
//   test/benchmarks/js/compare_hosts.py --runs 1 test/benchmarks/js/get_store.js
//       (the shell and Node, each running harness.js + this file)
//
// The floor is a call of an empty native function. The shell exposes one as
// benchNatives.emptyFunction; where it is missing (Node, or a shell without
// it) the baseline is an empty JavaScript function, which TurboFan inlines:
// that baseline is an empty loop, far below a native call, and the ratio
// against it is not the target's ratio (the output says which one ran).

'use strict';

const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

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
