// AsyncLocalStorage and AsyncContext flow through the shell's timers: a
// callback runs in the context frame captured when it was scheduled (every
// firing of an interval too), and each callback starts from that frame, so
// enterWith() in one callback is invisible in the next, and a store entered
// at the top level after scheduling does not leak into the timer.
// expect-stdout: \A(?![\s\S]*FAIL)
// expect-stdout: ^PASS setTimeout sees the store of run\(\)$
// expect-stdout: ^PASS setImmediate sees the store of run\(\)$
// expect-stdout: ^PASS every interval firing sees the store$
// expect-stdout: ^PASS nested timers inherit the store$
// expect-stdout: ^PASS enterWith in one callback is invisible in the next$
// expect-stdout: ^PASS a timer set outside run\(\) sees no store$
// expect-stdout: ^PASS AsyncContext\.Variable flows into timers$
// expect-stdout: ^PASS promise jobs in a timer keep its store$
function check(name, ok, detail) {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + detail));
}
const als = new AsyncLocalStorage();

als.run('timeout-store', () => {
  setTimeout(() => {
    check('setTimeout sees the store of run()',
          als.getStore() === 'timeout-store', als.getStore());
    setTimeout(() => {
      check('nested timers inherit the store',
            als.getStore() === 'timeout-store', als.getStore());
    }, 1);
    Promise.resolve().then(() => {
      check('promise jobs in a timer keep its store',
            als.getStore() === 'timeout-store', als.getStore());
    });
  }, 1);
});

als.run('immediate-store', () => {
  setImmediate(() => {
    check('setImmediate sees the store of run()',
          als.getStore() === 'immediate-store', als.getStore());
  });
});

const seen = [];
als.run('interval-store', () => {
  const interval = setInterval(() => {
    seen.push(als.getStore());
    // Must not leak into the next firing.
    als.enterWith('changed-by-callback');
    if (seen.length === 3) {
      clearInterval(interval);
      check('every interval firing sees the store',
            seen.every((store) => store === 'interval-store'), seen.join());
    }
  }, 1);
});

setTimeout(() => {
  als.enterWith('entered');
}, 2);
setTimeout(() => {
  check('enterWith in one callback is invisible in the next',
        als.getStore() === undefined, als.getStore());
}, 2);

setTimeout(() => {
  check('a timer set outside run() sees no store',
        als.getStore() === undefined, als.getStore());
}, 1);

const variable = new AsyncContext.Variable();
variable.run('variable-value', () => {
  setTimeout(() => {
    check('AsyncContext.Variable flows into timers',
          variable.get() === 'variable-value', variable.get());
  }, 1);
});

// Entering a store at the top level after scheduling does not reach the
// timers scheduled before.
als.enterWith('top-level');
