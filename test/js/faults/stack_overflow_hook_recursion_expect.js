// A hook that recurses through the hooks (its init makes two promises,
// whose init runs it again) until the stack ends is a hook error, as in
// Node.js, even though every overflow happens in V8's promise hooks or at
// the program's depth: a hook called from inside a hook callback is never
// the program's. Treating each overflow as the program's (skipped, the
// code goes on) would retry the recursion at every level below the limit,
// in time exponential in the depth; Node 24 runs this program for ever.
// expect-exit: 1
// expect-stderr: RangeError: Maximum call stack size exceeded
// expect-stdout: \A\Z
asyncHooks.createHook({
  init() {
    Promise.resolve();
    Promise.resolve();
  },
}).enable();
new AsyncResource('Start');
console.log('not reached');
