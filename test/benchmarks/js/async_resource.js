// Copyright 2026 the asyncctx authors. All rights reserved.
//
// `new AsyncResource('X')` with no hook, with an init hook, and with a destroy
// hook including GC and destroy emission (Node.js's
// benchmark/async_hooks/gc-tracking.js shape). Needs gc():
//
//   out/Default/asyncctx_shell --bench-natives --expose-gc \
//       test/benchmarks/js/harness.js test/benchmarks/js/async_resource.js
//   test/benchmarks/js/compare_hosts.py --runs 1 test/benchmarks/js/async_resource.js
//       (the shell and Node, each running harness.js + this file)
//
// No hook is compared with `new benchNatives.EmptyConstructor('X')` (an
// empty native constructor) where the host has it, else with an empty
// JavaScript class (a lower floor; the output says which). The hook cases are
// compared with the no-hook case. Every measured batch constructs n
// resources; the GC batches then call gc() and wait for the destroy hooks
// (or, with no destroy hook, one macrotask).
//
// Targets: no hook >= 0.7x of the empty native constructor; init hook >=
// 0.8x of no hook; destroy hook >= 0.2x of no hook, GC included.
// //test:benchmarks measures the same in C++ with the native references, and
// checks that no resource is GC-tracked with an init hook.

'use strict';

const {AsyncResource} =
    globalThis.AsyncResource ? globalThis : require('async_hooks');
const createHook = globalThis.asyncHooks?.createHook ??
    (typeof require === 'function' ? require('async_hooks').createHook :
                                     undefined);

const N = 1e6;
const N_GC = 2e5;
const NativeEmpty = globalThis.benchNatives?.EmptyConstructor;
class JsEmpty {
  constructor(type) {}
}
const Empty = NativeEmpty ?? JsEmpty;
const baselineName = NativeEmpty ?
    'new benchNatives.EmptyConstructor (empty native constructor)' :
    'new (empty JS class) (no native constructor here)';

let sink;
async function construct(n) {
  for (let i = 0; i < n; i++) sink = new AsyncResource('X');
  sink = undefined;
}
async function constructEmpty(n) {
  for (let i = 0; i < n; i++) sink = new Empty('X');
  sink = undefined;
}
const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));
let destroyed = 0;
// Set when a host's destroy hooks do not fire (Bun: its createHook accepts
// hooks and never calls them), which would otherwise wait forever.
let destroysMissing = false;
async function constructAndCollect(n) {
  if (destroysMissing) return;
  const target = destroyed + n;
  await construct(n);
  gc();
  await macrotask();
  // With a destroy hook, wait until every destroy was emitted, or until 200
  // macrotasks in a row brought none.
  for (let idle = 0; destroyHook !== undefined && destroyed < target;) {
    const before = destroyed;
    await macrotask();
    idle = destroyed === before ? idle + 1 : 0;
    if (idle >= 200) {
      destroysMissing = true;
      return;
    }
  }
}
let destroyHook;

(async () => {
  console.log(`async_resource.js on ${host}`);
  if (typeof gc !== 'function') {
    console.log('needs gc(): run with --expose-gc');
    return;
  }
  const p1 = await timeShapes(N, {construct, constructEmpty});
  line('new AsyncResource, no hook', p1.construct, baselineName,
       p1.constructEmpty, NativeEmpty ? 0.7 : undefined);
  const gcBase = await timeShapes(N_GC, {constructAndCollect});

  const init = createHook({init() {}}).enable();
  const p2 = await timeShapes(N, {construct});
  line('new AsyncResource, init hook', p2.construct, 'no hook', p1.construct,
       0.8);
  init.disable();

  destroyHook = createHook({destroy() { destroyed++; }}).enable();
  const p3 = await timeShapes(N_GC, {constructAndCollect}, 5, 1);
  destroyHook.disable();
  if (destroysMissing) {
    console.log('new AsyncResource, destroy hook: not measured, ' +
                `${destroyed} destroy hooks fired (this host does not call them)`);
    return;
  }
  line('new AsyncResource, destroy hook, + gc + destroys',
       p3.constructAndCollect, 'no hook + gc', gcBase.constructAndCollect, 0.2);
})();
