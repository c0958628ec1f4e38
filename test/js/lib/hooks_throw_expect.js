// expect-exit: 1
// expect-stderr: Error: thrown by the init hook
// expect-stderr: at AsyncHook\.init \(.*hooks_throw_expect\.js:\d+
// expect-stdout: ^before the resource$
// expect-stdout: \A(?![\s\S]*not reached)
//
// An exception thrown by a hook callback is fatal, as in Node: the error and
// its stack are printed and the process exits 1 without running any later
// JavaScript (no catch block sees it, no later callback runs).

'use strict';

const {createHook} = asyncHooks;
createHook({
  init(id, type) {
    if (type === 'Fatal') throw new Error('thrown by the init hook');
  },
}).enable();
console.log('before the resource');
try {
  new AsyncResource('Fatal');
  console.log('not reached: after the constructor');
} catch (err) {
  console.log('not reached: caught ' + err.message);
}
setTimeout(() => console.log('not reached: timer'), 0);
