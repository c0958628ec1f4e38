// An exception thrown by an `error` listener is fatal: it is reported, and
// is not dispatched again.
// expect-exit: 1
// expect-stderr: Error: thrown by the listener
// expect-stdout: \Alistener 1\n\Z
addEventListener('error', () => {
  console.log('listener', ++calls);
  throw new Error('thrown by the listener');
});
let calls = 0;
setTimeout(() => { throw new Error('first'); }, 1);
