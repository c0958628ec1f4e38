// expect-stdout: ^second job: undefined$
// expect-stdout: ^second job after a timer: undefined$
//
// See root_job_after_enter_with_test.js, whose jobs are queued while the
// frame slot holds ROOT (a timer callback or a checkpoint puts it there),
// which V8 captures like any frame. After a promise job V8 leaves the slot
// undefined, and a queueMicrotask callback at the root runs in it as it is:
// promise jobs queued there capture nothing (V8 10.2 skips an undefined
// slot), so only the library's reset at the start and end of such a job
// keeps the first job's enterWith from the second, unrelated one. Alone,
// with no harness (its frames would change what the slot holds).

const als = new AsyncLocalStorage();
als.run('on', () => {});  // the thenable repair's promise hooks are installed

function twoJobsQueuedWithTheSlotUndefined(label, done) {
  Promise.resolve().then(() => {
    queueMicrotask(() => {
      Promise.resolve().then(() => {
        als.enterWith('leaked from the first job');
      });
      Promise.resolve().then(() => {
        console.log(`${label}: ${als.getStore()}`);
        if (done) done();
      });
    });
  });
}

twoJobsQueuedWithTheSlotUndefined('second job', () => {
  setTimeout(() => twoJobsQueuedWithTheSlotUndefined(
      'second job after a timer'), 0);
});
