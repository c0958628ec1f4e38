// expect-exit: 1
// expect-stderr: Error: boom from a microtask
// expect-stderr: at .*queue_microtask_throw_expect\.js:\d+
// expect-stdout: ^first microtask store: outer$
// expect-stdout: \A(?![\s\S]*not reached)
//
// An exception thrown by a queueMicrotask callback queued inside a store
// (the wrapped path) is reported as uncaught: the shell, like Node, prints it
// with its stack and exits 1 at once, so neither later microtasks nor timers
// run.

'use strict';

const als = new AsyncLocalStorage();
als.run('outer', () => {
  queueMicrotask(() => {
    console.log('first microtask store: ' + als.getStore());
    throw new Error('boom from a microtask');
  });
  queueMicrotask(() => console.log('not reached: later microtask'));
});
queueMicrotask(() => console.log('not reached: root microtask'));
setTimeout(() => console.log('not reached: timer'), 0);
