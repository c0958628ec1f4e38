// expect-exit: 0
// expect-stdout: ^next reaction: same ids as with no hook true$
// expect-stdout: ^next timer: triggered by the reaction ids true$
// expect-stdout: ^done$
//
// A hook enabled inside a promise reaction, then disabled inside the next
// reaction, in a program that never entered a store (so the thenable repair
// does not keep V8's promise hooks installed). The first reaction had no
// `before` (the hooks were not installed when it started) but gets an
// `after`; the count of running jobs must not go below zero there, or the
// second reaction, which is running, counts as none, the hooks are removed
// under it, its `after` never comes, and its id stays on the execution
// stack for every later callback.

'use strict';

const {createHook, executionAsyncId, triggerAsyncId} = asyncHooks;
const log = console.log;
const ids = () => [executionAsyncId(), triggerAsyncId()];
const same = (a, b) => a[0] === b[0] && a[1] === b[1];

setTimeout(() => {
  // What a promise reaction sees when no hook is enabled.
  let control;
  Promise.resolve().then(() => {
    control = ids();
  });
  setTimeout(() => {
    let hook;
    Promise.resolve()
        .then(() => {
          hook = createHook({before() {}, after() {}}).enable();
        })
        .then(() => {
          hook.disable();
        })
        .then(() => {
          const seen = ids();
          log(`next reaction: same ids as with no hook ${same(seen, control)}` +
              (same(seen, control) ? '' : ` (${seen} vs ${control})`));
          setTimeout(() => {
            const trigger = triggerAsyncId();
            log('next timer: triggered by the reaction ids ' +
                (trigger === control[0]) +
                (trigger === control[0] ? '' : ` (${trigger} vs ${control[0]})`));
            setTimeout(() => log('done'), 0);
          }, 0);
        });
  }, 0);
}, 0);
