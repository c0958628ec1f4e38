// What no behaviour test of AsyncResource saw: how an invalid
// triggerAsyncId is described in the RangeError (src/js/async_resource.js
// describeAsyncId: no inspection of the value, no getter runs), and
// runInAsyncScope with more than two arguments (scopeArgs' general path).
// Each case kills mutants that every other test let survive (tools/mutate,
// docs/mutation.md).

'use strict';

test('an invalid triggerAsyncId is described by its kind', () => {
  const cases = [
    [function f() {}, '[Function: f]'],
    [{}, '[object Object]'],
    [Object.create(null), '[Object: null prototype] {}'],
    [10n, '10n'],
    [null, 'null'],
    [Symbol('s'), 'Symbol(s)'],
    [-2, '-2'],
  ];
  for (const [value, text] of cases) {
    assert.throws(() => new AsyncResource('x', {triggerAsyncId: value}), {
      code: 'ERR_INVALID_ASYNC_ID',
      message: `Invalid triggerAsyncId value: ${text}`,
    });
  }
});

test('runInAsyncScope passes thisArg and every argument', () => {
  const resource = new AsyncResource('X');
  const self = {};
  for (const args of [[], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4, 5]]) {
    const seen = resource.runInAsyncScope(function(...got) {
      return [this === self, got];
    }, self, ...args);
    assert.deepEqual(seen, [true, args]);
  }
});

test('a bound function passes its this (or thisArg) and every argument',
     () => {
       const resource = new AsyncResource('X');
       const self = {};
       const fn = function(...got) {
         return [this === self, got];
       };
       for (const args of [[], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4, 5]]) {
         assert.deepEqual(resource.bind(fn).apply(self, args), [true, args]);
         assert.deepEqual(resource.bind(fn, self)(...args), [true, args]);
       }
     });

// Node 24: `asyncResource` is an own enumerable, writable, configurable
// property of the bound function; `length` is fn's, not enumerable.
test('a bound function\'s asyncResource and length descriptors', () => {
  const resource = new AsyncResource('Shape');
  for (const bound of [resource.bind(function(a, b) {}),
                       AsyncResource.bind(function(a, b) {})]) {
    const own = Object.getOwnPropertyDescriptor(bound, 'asyncResource');
    assert.deepEqual([own.writable, own.enumerable, own.configurable],
                     [true, true, true]);
    assert(own.value instanceof AsyncResource);
    assert.deepEqual(Object.keys(bound), ['asyncResource']);
    const length = Object.getOwnPropertyDescriptor(bound, 'length');
    assert.deepEqual([length.value, length.writable, length.enumerable,
                      length.configurable], [2, false, false, true]);
  }
});
