// An ES module imports AsyncLocalStorage from node:async_hooks (and from
// async_hooks, and the default export): the same objects as the globals.
// The store survives `await` inside run(), timers and promise chains, and
// top-level await waits for all of it.
// expect-stdout: \Asame objects: true true true true\n
// expect-stdout: \nafter await: req-1\nafter timer: req-1\nin then: req-1\n
// expect-stdout: \noutside run: undefined\nmeta: file:///.*/test/js/shell/modules_async_local_storage_expect\.mjs\ndone\n\Z
import { AsyncLocalStorage, executionAsyncId, createHook } from 'node:async_hooks';
import asyncHooksDefault, * as ns from 'async_hooks';

console.log('same objects:', AsyncLocalStorage === globalThis.AsyncLocalStorage,
            asyncHooksDefault === globalThis.asyncHooks,
            ns.executionAsyncId === executionAsyncId,
            ns.createHook === createHook);
const als = new AsyncLocalStorage();
await als.run('req-1', async () => {
  await null;
  console.log('after await:', als.getStore());
  await new Promise((resolve) => setTimeout(resolve, 2));
  console.log('after timer:', als.getStore());
  await Promise.resolve().then(() => console.log('in then:', als.getStore()));
});
console.log('outside run:', als.getStore());
console.log('meta:', import.meta.url);
setTimeout(() => console.log('done'), 1);
