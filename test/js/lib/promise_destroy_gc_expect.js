// With a destroy hook enabled, PROMISE resources that are
// garbage-collected report destroy, as in Node 18, 20 and 24 (OpenTelemetry's
// AsyncHooksContextManager maps ids to contexts and deletes on destroy).
// Promises are tracked for GC only while a destroy hook is enabled.
// args: --expose-gc
// expect-stdout: ^left: 0$
// expect-stdout: ^untracked after disable: ok$
'use strict';
const contexts = new Map();
const hook = asyncHooks.createHook({
  init(id, type) {
    if (type === 'PROMISE') contexts.set(id, 'ctx');
  },
  destroy(id) {
    contexts.delete(id);
  },
}).enable();
const als = new AsyncLocalStorage();
als.run('request', () => {
  for (let i = 0; i < 5000; i++) new Promise(() => {});
});
function settle(rounds, then) {
  gc();
  setTimeout(() => (rounds > 0 ? settle(rounds - 1, then) : then()), 5);
}
settle(6, () => {
  console.log('left:', contexts.size);
  hook.disable();
  const ids = new Set();
  const onlyInit = asyncHooks.createHook({
    init(id, type) {
      if (type === 'PROMISE') ids.add(id);
    },
  }).enable();
  let destroyed = 0;
  const counter = asyncHooks.createHook({
    destroy(id) {
      if (ids.has(id)) destroyed++;
    },
  });
  for (let i = 0; i < 100; i++) new Promise(() => {});
  counter.enable();
  settle(4, () => {
    onlyInit.disable();
    counter.disable();
    console.log('untracked after disable:', destroyed === 0 ? 'ok' : destroyed);
  });
});
