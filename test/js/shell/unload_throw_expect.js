// An exception in an 'unload' listener is uncaught: printed, exit code 1,
// and the next listener does not run.
// expect-exit: 1
// expect-stderr: Error: thrown by unload\n    at test/js/shell/unload_throw_expect\.js:8:\d+
// expect-stdout: \Afirst unload\n\Z
addEventListener('unload', () => {
  console.log('first unload');
  throw new Error('thrown by unload');
});
addEventListener('unload', () => console.log('must not run: second unload'));
