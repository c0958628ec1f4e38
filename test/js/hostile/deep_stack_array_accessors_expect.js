// expect-stdout: ^setters called: 0$
// expect-stdout: ^resources right at every depth: true$
// expect-stdout: ^back at the top: true$
//
// The list behind executionAsyncResource() starts with 64 elements and
// grows in place when AsyncResource scopes nest deeper. Every element it
// grows by is defined first, so that storing a resource there never looks
// for a setter on Array.prototype: an attacker's accessors on the indices
// past the first 64 see nothing of 300 nested scopes, and every depth still
// reads its own resource.

'use strict';

const {executionAsyncResource} = asyncHooks;
// Made before the accessors exist (this test's own arrays would meet them).
const resources = [];
for (let i = 0; i < 300; i++) resources.push(new AsyncResource(`Level${i}`));

let setterCalls = 0;
const seenBySetters = new Set();
for (let i = 64; i < 1024; i++) {
  Object.defineProperty(Array.prototype, i, {
    get() {
      return undefined;
    },
    set(value) {
      setterCalls++;
      seenBySetters.add(value);
    },
    configurable: true,
  });
}

let right = true;
function enter(level) {
  if (level === resources.length) return;
  resources[level].runInAsyncScope(() => {
    if (executionAsyncResource() !== resources[level]) right = false;
    enter(level + 1);
    if (executionAsyncResource() !== resources[level]) right = false;
  });
}
enter(0);
console.log(`setters called: ${setterCalls}`);
console.log(`resources right at every depth: ${right}`);
console.log(`back at the top: ${!resources.includes(executionAsyncResource())}`);
