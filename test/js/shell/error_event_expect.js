// An uncaught exception is dispatched as an `error` event (ErrorEvent-like)
// before it is fatal. The listener runs in the context frame of the callback
// the exception escaped from, and preventDefault() keeps the program
// running. removeEventListener() takes the listener away: the next uncaught
// exception is fatal again.
// expect-exit: 1
// expect-stdout: \Aerror: ErrorEvent error true Uncaught Error: microtask boom test/js/shell/error_event_expect\.js 24 true store=req-B\n
// expect-stdout: \nerror: ErrorEvent error true Uncaught Error: timer boom test/js/shell/error_event_expect\.js 23 true store=req-B\nafter the timer\nremoved\n\Z
// expect-stderr: ^test/js/shell/error_event_expect\.js:30\n
// expect-stderr: Error: now fatal
const als = new AsyncLocalStorage();
function onError(event) {
  console.log('error:', event.constructor.name, event.type, event.cancelable,
              event.message, event.filename, event.lineno,
              event.error instanceof Error,
              `store=${als.getStore()}`);
  if (event.defaultPrevented) throw new Error('must not be prevented yet');
  event.preventDefault();
  if (!event.defaultPrevented) throw new Error('must be prevented now');
}
addEventListener('error', onError);
als.run('req-B', () => {
  setTimeout(() => { throw new Error('timer boom'); }, 1);
  queueMicrotask(() => { throw new Error('microtask boom'); });
});
setTimeout(() => console.log('after the timer'), 5);
setTimeout(() => {
  setTimeout(() => {
    setTimeout(() => console.log('must not run'), 1);
    throw new Error('now fatal');
  }, 1);
  removeEventListener('error', onError);
  console.log('removed');
}, 10);
