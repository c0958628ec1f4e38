// The same probe as modules_empty_context_expect.js in Node 24 or 26 (no
// AsyncContext there): `node test/js/shell/modules_empty_context_node.js`.
// Not run by test/js/run_tests.py (its name has no _test/_expect suffix).
'use strict';

const {AsyncLocalStorage} = require('node:async_hooks');
const log = globalThis.probeLog = [];
const als = globalThis.probeStorage = new AsyncLocalStorage();
als.run('caller', () => import('./fixtures/context_probe.mjs').then(() => {
  log.push(`reaction on import(): store ${als.getStore()}`);
  setTimeout(() => {
    for (const line of log) console.log(line);
  }, 5);
}));
