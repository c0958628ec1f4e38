// expect-exit: 0
// expect-stdout: \Afirst\nsecond: store undefined, variable v\nthird: store undefined\n\Z
//
// As queue_microtask_before_storage_expect.js, with a hook enabled while the
// second callback is queued: that one runs in a wrapper of its own (with its
// Microtask resource), which must put the root back after it although the
// bare callback before it left a frame of its own (enterWith of a storage
// made inside it), so the bare callback after it sees no store.

'use strict';

const log = console.log;
const variable = new AsyncContext.Variable();
let als;
queueMicrotask(() => {
  log('first');
  als = new AsyncLocalStorage();
  als.enterWith('leak');
});
const hook = asyncHooks.createHook({init() {}}).enable();
variable.run('v', () => queueMicrotask(() => {
  log(`second: store ${als.getStore()}, variable ${variable.get()}`);
}));
hook.disable();
queueMicrotask(() => log(`third: store ${als.getStore()}`));
