// expect-exit: 0
// expect-stdout: \Afirst\nsecond: store undefined, variable v\nthird: store undefined\n\Z
//
// Callbacks queued at the root before any AsyncLocalStorage exists are
// queued bare (the fast path); one queued in a frame goes through the
// shared runner and its FIFO. The runner must run only its own callback
// (the bare ones have no entry there), and must put the root back after
// it even though the bare callback before it left a frame of its own
// (enterWith of a storage made inside it): the bare callback after the
// runner sees no store.

'use strict';

const log = console.log;
const variable = new AsyncContext.Variable();
let als;
queueMicrotask(() => {
  log('first');
  als = new AsyncLocalStorage();
  als.enterWith('leak');
});
variable.run('v', () => queueMicrotask(() => {
  log(`second: store ${als.getStore()}, variable ${variable.get()}`);
}));
queueMicrotask(() => log(`third: store ${als.getStore()}`));
