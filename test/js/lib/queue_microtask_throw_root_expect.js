// expect-exit: 1
// expect-stderr: Error: boom from a root microtask
// expect-stderr: at .*queue_microtask_throw_root_expect\.js:\d+
// expect-stdout: ^first microtask ran$
// expect-stdout: \A(?![\s\S]*not reached)
//
// The same from the root frame with no hook enabled (the bare V8 microtask
// fast path): reported as uncaught, exit 1, nothing later runs.

'use strict';

queueMicrotask(() => {
  console.log('first microtask ran');
  throw new Error('boom from a root microtask');
});
queueMicrotask(() => console.log('not reached: later microtask'));
Promise.resolve().then(() => console.log('not reached: reaction'));
setTimeout(() => console.log('not reached: timer'), 0);
