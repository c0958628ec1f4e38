// The other side of stack_overflow_creating_promise_*: only a stack overflow at the entry of the
// layer's promise hooks is left to the program. One that escapes the
// layer's code in a bare microtask (here, runs nested until the stack
// ends) is an uncaught exception, reported with its real message.
// expect-exit: 1
// expect-stderr: RangeError: Maximum call stack size exceeded
queueMicrotask(() => {
  const v = new AsyncContext.Variable();
  function f() { v.run(1, f); }
  f();
});
setTimeout(() => console.log('not reached'), 5);
