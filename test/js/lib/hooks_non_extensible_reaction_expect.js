// expect-stdout: ^events of the reaction: none or both: true( \(.*\))?$
// expect-stdout: ^next timer: not on top of the reaction: true$
//
// A promise reaction made at the root before any hook was enabled, then
// made non-extensible: when it runs with a hook enabled, newer V8s refuse
// the library's private fields on it, so it can get no ids. It must then
// run without events at all: a `before` whose `after` can never find the
// id would leave it on the execution stack under every later callback.
// Alone, with no harness (its frames would stamp the promise at creation).

'use strict';

const {createHook, executionAsyncId} = asyncHooks;
const events = [];
let inside;
const reaction = Promise.resolve().then(() => {
  inside = executionAsyncId();
});
Object.preventExtensions(reaction);
createHook({
  before(id) {
    events.push(['before', id]);
  },
  after(id) {
    events.push(['after', id]);
  },
}).enable();
reaction.then(() => {
  const mine = events.filter((e) => e[1] === inside).map((e) => e[0]);
  console.log('events of the reaction: none or both: ' +
              (mine.length === 0 || mine.join() === 'before,after') +
              ` (${mine.join()})`.replace(' ()', ''));
  setTimeout(() => {
    console.log('next timer: not on top of the reaction: ' +
                (executionAsyncId() !== inside));
  }, 0);
});
