// A promise rejected with an error and still unhandled after the microtask
// checkpoint is fatal (Node's default): the location of the error, its
// stack, exit code 1, and nothing else runs. A rejection handled within the
// same checkpoint is fine.
// expect-exit: 1
// expect-stderr: ^test/js/shell/unhandled_rejection_expect\.js:13\n
// expect-stderr: Error: rejected in a timer\n    at Timeout\.<anonymous> \(test/js/shell/unhandled_rejection_expect\.js:13:\d+\)
// expect-stdout: \Ahandled in time\n\Z
Promise.reject(new Error('handled below')).catch(() => {
  console.log('handled in time');
});
setTimeout(() => {
  Promise.reject(new Error('rejected in a timer'));
}, 1);
setTimeout(() => console.log('must not run: later timer'), 5);
addEventListener('unload', () => console.log('must not run: unload'));
