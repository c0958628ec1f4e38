// Copyright 2026 the asyncctx authors. All rights reserved.
//
// diagnostics_channel: Channel#publish with no subscriber and with one,
// 1e6 times per round, and TracingChannel#tracePromise of an async function
// with one store bound to the start channel (an AsyncLocalStorage, as APM
// tools bind theirs), 1e5 traced calls awaited one after another.
//
//   out/v8-13.6/asyncctx_shell --bench-natives \
//       test/benchmarks/js/harness.js test/benchmarks/js/diagnostics_channel.js
//   test/benchmarks/js/compare_hosts.py --v8=13.6 --runs 3 \
//       test/benchmarks/js/diagnostics_channel.js
//       (our shell and Node 24 from the same node binary)
//
// The ratios inside one host are against a reference measured in the same
// run: the publish loops against an empty function call (as als_run.js),
// tracePromise against awaiting the same async function untraced. The
// target (at least Node's speed for each) is about the hosts' ns column of
// compare_hosts.py: Node's ns / ours >= 1.

'use strict';

const dc = globalThis.diagnosticsChannel ?? require('diagnostics_channel');
const {AsyncLocalStorage} =
    globalThis.AsyncLocalStorage ? globalThis : require('async_hooks');

const N = 1e6;
const NA = 1e5;
const nativeEmpty = globalThis.benchNatives?.emptyFunction;
function jsEmpty() {}
const empty = nativeEmpty ?? jsEmpty;
const baselineName = nativeEmpty ? 'empty native call (benchNatives.emptyFunction)' :
                                   'empty JS function call (inlined; no native floor here)';

let sink = 0;
const data = {id: 1};

const silent = dc.channel('bench:silent');
function publishNoSubscriberLoop(n) {
  for (let i = 0; i < n; i++) silent.publish(data);
}

const busy = dc.channel('bench:busy');
busy.subscribe((message) => {
  sink += message.id;
});
function publishOneSubscriberLoop(n) {
  for (let i = 0; i < n; i++) busy.publish(data);
}

function emptyLoop(n) {
  for (let i = 0; i < n; i++) empty();
}

const als = new AsyncLocalStorage();
const traced = dc.tracingChannel('bench:traced');
traced.start.bindStore(als, (context) => context.span);
async function work(i) {
  return i;
}
async function tracePromiseLoop(n) {
  for (let i = 0; i < n; i++) {
    sink += await traced.tracePromise(work, {span: i}, undefined, i);
  }
}
async function untracedLoop(n) {
  for (let i = 0; i < n; i++) sink += await work(i);
}

(async () => {
  console.log(`diagnostics_channel.js on ${host}`);
  report('publish, no subscriber', compare(N, publishNoSubscriberLoop, emptyLoop),
         baselineName);
  report('publish, one subscriber',
         compare(N, publishOneSubscriberLoop, emptyLoop), baselineName);
  const times = await timeShapes(NA, {tracePromiseLoop, untracedLoop});
  line('tracePromise, one bound store', times.tracePromiseLoop,
       'await of the untraced async function', times.untracedLoop);
  if (sink === 0.5) console.log('');
})();
