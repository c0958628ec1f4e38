// With only unref'd work pending, the loop does not start an iteration at
// all (libuv's rule), so neither an unref'd immediate nor a due unref'd timer
// runs.
// expect-stdout: \Amain\nunload\n\Z
setImmediate(() => console.log('must not run: unref immediate')).unref();
setTimeout(() => console.log('must not run: unref timer'), 0).unref();
addEventListener('unload', () => console.log('unload'));
console.log('main');
