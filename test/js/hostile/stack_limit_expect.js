// Stack-limit attacks (issue 23, items 2, 3 and 9). Before anyone else uses
// the API, the attacker makes the realm's first frame entry (run,
// Variable.run, enterWith) at every depth near the stack limit, so that one
// of them overflows half-way through switching the thenable repair on
// (V8 10.2: marked active, promise hooks never installed). Then, in each of
// its requests, with a hook that has only a `before` callback, then one
// with only `after`, then one with only `init`, it recurses through
// runInAsyncScope until the stack ends (promise_at_stack_limit_expect.js
// makes promises there). Each overflow is
// the attacker's own RangeError, caught by its own try/catch: the process
// goes on, and the victim's callbacks (thenables included) all run, in its
// own context, on every V8.
// isolated-vm: quiet-ms 5000 (inside an isolated-vm isolate the attacker's
// tens of thousands of overflows take seconds, with nothing printed)
// expect-stdout: ^attacker caught its RangeErrors$
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const observed = [];

function atEveryDepth(attempt) {
  let done = false;
  let overflows = 0;
  function pad(n) {
    if (n === 0) {
      attempt();
      return;
    }
    pad(n - 1);
  }
  function deep() {
    try {
      deep();
    } catch {
      overflows++;
    }
    for (let k = 40; k >= 0 && !done; k--) {
      try {
        pad(k);
        done = true;
      } catch {
        overflows++;
      }
    }
  }
  deep();
  return overflows;
}

let caught = 0;
// The realm's first frames, at the stack limit.
const first = new AsyncContext.Variable();
caught += atEveryDepth(() => first.run('probe', () => {}));
caught += atEveryDepth(() => new AsyncLocalStorage().enterWith('probe'));
caught += atEveryDepth(() => new AsyncLocalStorage().run('probe', () => {}));
// enterWith above left a frame at the top level; the attacker's script
// ends here and the tenants start from their own callbacks.

function attacker() {
  const own = new AsyncLocalStorage();
  own.run('attacker', () => {
    for (const callbacks of [{before() {}}, {after() {}}, {init() {}}]) {
      const hook = asyncHooks.createHook(callbacks).enable();
      const resource = new AsyncResource('Deep');
      function recurse() {
        resource.runInAsyncScope(recurse);
      }
      try {
        recurse();
      } catch (e) {
        if (e instanceof RangeError) caught++;
      }
      hook.disable();
    }
  });
}

runTenants(p, observed, attacker);
p.setTimeout(() => {
  p.log(caught > 0 ? 'attacker caught its RangeErrors' :
                     'FAIL: no overflow happened');
}, 100);
