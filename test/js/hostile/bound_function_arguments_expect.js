// Accessors on Array.prototype indices (setters that record what passes)
// while functions bound with AsyncResource.bind and AsyncResource#bind are
// called with more than two arguments: the list of the function, its
// receiver and the arguments that the layer hands to runInAsyncScope is
// made at its full length, so no element reaches the setters, and the
// function gets every argument.
// expect-stdout: ^observed nothing: true$
// expect-stdout: ^arguments: 1,2,3,4 / 5,6,7$
'use strict';
// Strings, not arrays: an array of the test's own would meet the setters.
let observed = '';
for (let i = 0; i < 64; i++) {
  Object.defineProperty(Array.prototype, i, {
    get() {
      return undefined;
    },
    set(value) {
      observed += ` set ${i}: ${typeof value}`;
    },
    configurable: true,
  });
}
const secret = {token: 'the receiver'};
const bound = AsyncResource.bind(function(a, b, c, d) {
  return `${a},${b},${c},${d}`;
}, 'Bound', secret);
const resource = new AsyncResource('Bound');
const boundByResource = resource.bind(function(a, b, c) {
  return `${a},${b},${c}`;
});
const got = `${bound(1, 2, 3, 4)} / ${boundByResource(5, 6, 7)}`;
console.log(`observed nothing: ${observed === ''}`);
if (observed !== '') console.log(`observed:${observed}`);
console.log(`arguments: ${got}`);
