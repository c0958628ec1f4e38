// expect-exit: 0
// expect-stdout: ^inside the reaction: promise id true$
// expect-stdout: ^next reaction: same ids as with no hook true$
// expect-stdout: ^next timer: triggered by the reaction ids true$
// expect-stdout: ^done$
//
// Disabling the last hook inside a promise reaction, in a program that never
// entered a store (so the thenable repair does not keep V8's promise hooks
// installed): the reaction pushed the promise's id on the execution stack in
// V8's `before` hook, and the matching `after` must still pop it, or every
// later callback runs on top of a stale entry. (Node defers removing its
// promise hooks for exactly this reason.)

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
    const promises = new Map();
    const hook = createHook({
      init(id, type, trigger, resource) {
        if (type === 'PROMISE') promises.set(resource, id);
      },
      before() {},
    }).enable();
    const reaction = Promise.resolve().then(() => {
      log('inside the reaction: promise id ' +
          (executionAsyncId() === promises.get(reaction)));
      hook.disable();
    });
    reaction.then(() => {
      const seen = ids();
      log(`next reaction: same ids as with no hook ${same(seen, control)}` +
          (same(seen, control) ? '' : ` (${seen} vs ${control})`));
      setTimeout(() => {
        const trigger = triggerAsyncId();
        log(`next timer: triggered by the reaction ids ${trigger === control[0]}`);
        setTimeout(() => log('done'), 0);
      }, 0);
    });
  }, 0);
}, 0);
