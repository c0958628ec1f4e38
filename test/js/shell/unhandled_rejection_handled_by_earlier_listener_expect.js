// Two promises rejected in one checkpoint; the listener for the
// first attaches a handler to the second, which then is not reported (the
// web's rule: a rejection handled by the time its turn comes is skipped).
// expect-stdout: \Aunhandledrejection 1\nsecond handled: 2\n\Z
let second;
addEventListener('unhandledrejection', (event) => {
  console.log('unhandledrejection', event.reason);
  event.preventDefault();
  second.catch((reason) => console.log('second handled:', reason));
});
Promise.reject(1);
second = Promise.reject(2);
