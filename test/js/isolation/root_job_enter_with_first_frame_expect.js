// expect-stdout: ^reaction undefined\nmicrotask undefined\n
//
// See root_job_after_enter_with_test.js. The first non-root frame of the context is entered by an enterWith inside a
// promise job captured at the root. The library's promise hooks come on
// during that job, so V8 calls `after` for it without a `before`; the job
// must still end in the root frame, or the next root-frame job (a reaction,
// a queueMicrotask callback) runs in the leaked frame. Alone, with no
// harness: nothing may enter a frame earlier in the program.

const als = new AsyncLocalStorage();
Promise.resolve().then(() => {
  als.enterWith('leak');
});
Promise.resolve().then(() => {
  console.log('reaction', als.getStore());
});
Promise.resolve().then(() => {
  queueMicrotask(() => console.log('microtask', als.getStore()));
});
