// Promises made at the stack limit (issue 23, item 3). In its own request,
// with a hook that has only a `before` callback enabled (then one with only
// `after`, then one with only `init`), the attacker makes promises,
// reactions and async functions at every depth near the stack limit: V8
// reports what the layer's promise hooks throw there as an uncaught
// exception, which used to end the process (V8 13.6 and 14.6 too). Each
// overflow is the attacker's RangeError, caught by its own try/catch; the
// process goes on, and a victim's promise callbacks, thenables and timers
// all run in its own context, on every V8 (as in Node.js 24).
// expect-stdout: ^attacker caught its RangeErrors$
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();

let caught = 0;
function promisesAtTheLimit() {
  const base = Promise.resolve();
  (function deep() {
    try {
      deep();
    } catch {
      caught++;
    }
    try {
      Promise.resolve(1);
      base.then(() => {});
      (async () => {})().then(() => {});
    } catch {
      caught++;
    }
  })();
}
const own = new AsyncLocalStorage();
own.run('attacker', () => {
  for (const callbacks of [{before() {}}, {after() {}}, {init() {}}]) {
    const hook = asyncHooks.createHook(callbacks).enable();
    promisesAtTheLimit();
    hook.disable();
  }
});

// The victim: its callbacks must all run, in its own store.
const store = new AsyncLocalStorage();
const seen = [];
for (const secret of ['one', 'two']) {
  store.run(secret, () => {
    const mine = () => p.push(seen, store.getStore() === secret);
    const thenable = {
      then(resolve) {
        mine();
        resolve();
      },
    };
    Promise.resolve().then(mine);
    new Promise((resolve) => resolve(thenable)).then(mine);
    (async () => {
      await null;
      mine();
      await thenable;
      mine();
    })();
    p.setTimeout(mine, 1);
  });
}
p.setTimeout(() => {
  p.log(caught > 0 ? 'attacker caught its RangeErrors' :
                     'FAIL: no overflow happened');
  p.log(seen.length === 14 && seen.every((ok) => ok) ? 'victim ok' :
                                                      `FAIL: ${seen}`);
}, 50);
