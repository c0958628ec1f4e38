// An `error` listener that prevents the default also handles an exception
// thrown by the top level of a script: the work it scheduled still runs and
// the exit code is 0. The message has the browser's "Uncaught " prefix and
// the location of the throw.
// expect-stdout: \Aprevented: Uncaught Error: top level at 11:1\ntimer ran\n\Z
addEventListener('error', (event) => {
  console.log(`prevented: ${event.message} at ${event.lineno}:${event.colno}`);
  event.preventDefault();
});
setTimeout(() => console.log('timer ran'), 1);
throw new Error('top level');
