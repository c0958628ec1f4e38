// An exception thrown by a timer callback is fatal, as in Node: stderr shows
// the file and line with the source and a caret, then the stack (which names
// the Timeout, the callback's `this`); the exit code is 1, and nothing runs
// afterwards: not the microtask the callback queued, not the next timer, not
// the unload listeners.
// expect-exit: 1
// expect-stderr: ^test/js/shell/uncaught_exception_expect\.js:13\n  throw new Error\('boom from a timer'\);\n  \^\n\nError: boom from a timer\n    at Timeout\.<anonymous> \(test/js/shell/uncaught_exception_expect\.js:13:9\)
// expect-stdout: \Abefore\n\Z
console.log('before');
addEventListener('unload', () => console.log('must not run: unload'));
setTimeout(() => {
  Promise.resolve().then(() => console.log('must not run: microtask'));
  throw new Error('boom from a timer');
}, 1);
setTimeout(() => console.log('must not run: later timer'), 1);
