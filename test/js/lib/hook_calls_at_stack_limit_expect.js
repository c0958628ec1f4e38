// Hooks called at every depth near the stack limit by the program itself:
// `new AsyncResource` (init) and runInAsyncScope (before, after), with a
// hook of each kind enabled alone. An overflow there happens at the
// program's depth (the hook call depth is 1) and is the program's
// RangeError, caught by its own try/catch, never a hook error (which would
// end the process, as in Node.js); the hooks still run for the calls that
// fit, and nothing is left on the execution stack.
// expect-stdout: ^caught: true$
// expect-stdout: ^hooks ran: true$
// expect-stdout: ^at rest: true$
'use strict';

let caught = 0;
let ran = 0;
function atEveryDepth(fn) {
  (function deep() {
    try {
      deep();
    } catch {
      caught++;
    }
    try {
      fn();
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      caught++;
    }
  })();
}
for (const kind of ['init', 'before', 'after']) {
  const hook = asyncHooks.createHook({[kind]() { ran++; }}).enable();
  atEveryDepth(() => new AsyncResource('LIMIT'));
  const resource = new AsyncResource('LIMIT');
  atEveryDepth(() => resource.runInAsyncScope(() => {}));
  hook.disable();
}
console.log(`caught: ${caught > 0}`);
console.log(`hooks ran: ${ran > 0}`);
console.log(`at rest: ${asyncHooks.executionAsyncId() === 1 &&
                        asyncHooks.triggerAsyncId() === 0}`);
