// expect-exit: 1
// expect-stderr: Error: thrown by the before hook
// expect-stdout: ^timer scheduled$
// expect-stdout: \A(?![\s\S]*not reached)
//
// A before hook that throws around a host (timer) callback: fatal, exit 1,
// and the timer callback itself does not run.

'use strict';

const {createHook} = asyncHooks;
let timerId;
createHook({
  init(id, type) {
    if (type === 'Timeout') timerId = id;
  },
  before(id) {
    if (id === timerId) throw new Error('thrown by the before hook');
  },
}).enable();
setTimeout(() => console.log('not reached: timer callback'), 0);
console.log('timer scheduled');
