// asyncctx inside isolated-vm: each tenant's code runs in an isolate of its
// own and still gets AsyncLocalStorage, queueMicrotask and async hooks.
//
//   npm install isolated-vm@7.0 asyncctx-isolated-vm
//   node examples/isolated_vm_tenants.js
//
// (In this repository: examples/run_examples.py runs it under Node 24 and
// 26 against the packed tarball; see docs/embedding.md, "With
// isolated-vm".) Two tenants, each in its own isolate on isolated-vm's
// thread pool, serve interleaved requests. A request's id is stored once,
// with AsyncLocalStorage.run(), and every log line finds it again: after an
// await, in a queueMicrotask callback, and after the host's asynchronous
// "database" answers. An exception in a microtask reaches the host's
// onError instead of Node's stderr.
'use strict';

const ivm = require('isolated-vm');
const asyncctx = require('asyncctx-isolated-vm');

// The tenant's program: no asyncctx API is passed in, the globals exist.
const TENANT = `
  const request = new AsyncLocalStorage();
  function log(message) {
    hostLog('[' + tenant + ' request ' + request.getStore() + '] ' + message);
  }
  globalThis.handle = (id) => request.run(id, async () => {
    log('started');
    const row = await query('SELECT ' + id);
    log('database answered ' + row);
    await new Promise((resolve) => queueMicrotask(() => {
      log('in a queueMicrotask callback');
      resolve();
    }));
    if (id === 2) queueMicrotask(() => { throw new Error('tenant bug'); });
    return 'done ' + request.getStore();
  });
`;

async function startTenant(name) {
  const isolate = new ivm.Isolate({memoryLimit: 32});
  const context = await isolate.createContext();
  await asyncctx.install(context, {
    onError(error) {
      console.log(`[${name} errors] ${error.kind}: ${error.message}`);
    },
  });
  const jail = context.global;
  await jail.set('tenant', name);
  await jail.set('hostLog', new ivm.Callback((line) => console.log(line)));
  // The host's asynchronous service: answers after a delay, on Node's side.
  await jail.set('hostQuery', new ivm.Reference((sql, ms) =>
    new Promise((resolve) => setTimeout(() => resolve(`row(${sql})`), ms))));
  await context.eval(`
    const hostQueryRef = hostQuery;
    delete globalThis.hostQuery;
    globalThis.query = (sql) => hostQueryRef.apply(
        undefined, [sql, sql.length * 3], {result: {promise: true}});
  `);
  await context.eval(TENANT);
  const handle = await jail.get('handle', {reference: true});
  return {isolate, handle};
}

(async () => {
  const tenants = await Promise.all([startTenant('a'), startTenant('b')]);
  const results = await Promise.all([1, 2, 3].flatMap((id) =>
    tenants.map(({handle}) =>
      handle.apply(undefined, [id], {result: {promise: true}}))));
  console.log(`[host] ${results.join(', ')}`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (const {isolate} of tenants) isolate.dispose();
  console.log(`[host] live runtimes after dispose: ${asyncctx.stats().live}`);
})();
