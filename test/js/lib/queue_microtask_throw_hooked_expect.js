// expect-exit: 1
// expect-stderr: Error: boom with hooks
// expect-stdout: ^before Microtask$
// expect-stdout: \A(?![\s\S]*not reached)
//
// The same with an async hook enabled (the Microtask resource path).

'use strict';

const {createHook} = asyncHooks;
let microtaskId;
createHook({
  init(id, type) {
    if (type === 'Microtask' && microtaskId === undefined) microtaskId = id;
  },
  before(id) {
    if (id === microtaskId) console.log('before Microtask');
  },
}).enable();
queueMicrotask(() => {
  throw new Error('boom with hooks');
});
queueMicrotask(() => console.log('not reached: later microtask'));
setTimeout(() => console.log('not reached: timer'), 0);
