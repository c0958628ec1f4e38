// The thenable repair switched on at the stack limit (issue 23, item 2).
// Before any tenant uses the API, the attacker makes the realm's first
// frame entry (Variable.run, then enterWith) at every depth near the stack
// limit: one attempt gets the repair marked active and overflows before
// V8's promise hooks are installed. The activation is all or nothing (the
// attempt throws the attacker's RangeError and leaves the repair off) and
// the next frame entry tries again, so the victim's thenables keep their
// context on V8 10.2 (newer V8s need no repair; as in Node.js 24).
// expect-stdout: ^victim ok$
// expect-stdout: ^thenables ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();

// Tries `attempt` at every depth from the stack limit up, in steps of
// a few bytes (frames with 0 to 7 extra arguments), until one succeeds.
function atEveryDepth(attempt) {
  let done = false;
  const steps = [
    () => attempt(),
    (a) => attempt(),
    (a, b) => attempt(),
    (a, b, c) => attempt(),
    (a, b, c, d) => attempt(),
    (a, b, c, d, e) => attempt(),
    (a, b, c, d, e, f) => attempt(),
    (a, b, c, d, e, f, g) => attempt(),
  ];
  function pad(n, step) {
    if (n === 0) {
      steps[step](1, 2, 3, 4, 5, 6, 7);
      return;
    }
    pad(n - 1, step);
  }
  (function deep() {
    try {
      deep();
    } catch {}
    for (let k = 8; k >= 0 && !done; k--) {
      for (let step = 7; step >= 0 && !done; step--) {
        try {
          pad(k, step);
          done = true;
        } catch {}
      }
    }
  })();
}

const variable = new AsyncContext.Variable();
atEveryDepth(() => variable.run('probe', () => {}));
atEveryDepth(() => new AsyncLocalStorage().enterWith('probe'));
runTenants(p, []);

// A second victim whose thenables' `then` methods must see its store (the
// repair's own work on V8 10.2), and the code after them too.
const store = new AsyncLocalStorage();
const seen = [];
for (const secret of ['one', 'two']) {
  store.run(secret, () => {
    const thenable = {
      then(resolve) {
        p.push(seen, store.getStore() === secret);
        resolve();
      },
    };
    new Promise((resolve) => resolve(thenable)).then(() => {
      p.push(seen, store.getStore() === secret);
    });
    (async () => {
      await thenable;
      p.push(seen, store.getStore() === secret);
      return thenable;
    })();
  });
}
p.setTimeout(() => {
  p.log(seen.length === 10 && seen.every((ok) => ok) ? 'thenables ok' :
                                                      `FAIL: ${seen}`);
}, 50);
