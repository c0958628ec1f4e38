// As a fresh program: enterWith inside a
// bare queueMicrotask callback must not leak into the next microtask or
// the timer it schedules. Node 18, 20 and 24 print undefined twice.
// expect-stdout: ^next microtask sees undefined$
// expect-stdout: ^timer it schedules sees undefined$
const als = new AsyncLocalStorage();
queueMicrotask(() => als.enterWith({ user: 'alice' }));
queueMicrotask(() => {
  console.log('next microtask sees', als.getStore());
  setTimeout(() => console.log('timer it schedules sees', als.getStore()), 1);
});
