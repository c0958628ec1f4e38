// An exception in a 'beforeunload' listener is uncaught: printed, exit code
// 1, and neither the work it scheduled nor 'unload' runs.
// expect-exit: 1
// expect-stderr: TypeError: thrown by beforeunload
// expect-stdout: \A\Z
addEventListener('beforeunload', () => {
  setTimeout(() => console.log('must not run: timer'), 0);
  throw new TypeError('thrown by beforeunload');
});
addEventListener('unload', () => console.log('must not run: unload'));
