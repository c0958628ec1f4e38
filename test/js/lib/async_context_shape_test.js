// The shape of AsyncContext that no behaviour test sees: the property
// descriptors of its methods, its toStringTags and Snapshot.wrap's
// functions, and the "Received ..." part of its TypeErrors. Each case
// kills mutants of src/js/async_context.js that every other test let
// survive (tools/mutate, docs/mutation.md).

'use strict';

function descriptor(object, key) {
  const d = Object.getOwnPropertyDescriptor(object, key);
  return [typeof d.value, d.writable, d.enumerable, d.configurable];
}

test('Variable.prototype.run is writable, not enumerable, configurable',
     () => {
       assert.deepEqual(descriptor(AsyncContext.Variable.prototype, 'run'),
                        ['function', true, false, true]);
     });

test('the toStringTags are read-only, not enumerable, configurable', () => {
  assert.deepEqual(
      descriptor(AsyncContext.Variable.prototype, Symbol.toStringTag),
      ['string', false, false, true]);
  assert.deepEqual(
      descriptor(AsyncContext.Snapshot.prototype, Symbol.toStringTag),
      ['string', false, false, true]);
  assert.equal(Object.prototype.toString.call(new AsyncContext.Variable()),
               '[object AsyncContext.Variable]');
  assert.equal(Object.prototype.toString.call(new AsyncContext.Snapshot()),
               '[object AsyncContext.Snapshot]');
});

test('Snapshot.wrap: name and length are read-only, not enumerable', () => {
  const wrapped = AsyncContext.Snapshot.wrap(function f(a, b) {});
  assert.deepEqual(descriptor(wrapped, 'length'),
                   ['number', false, false, true]);
  assert.deepEqual(descriptor(wrapped, 'name'),
                   ['string', false, false, true]);
  assert.equal(wrapped.length, 2);
  assert.equal(wrapped.name, 'wrapped f');
});

test('Snapshot.wrap: a NaN or -Infinity length is 0', () => {
  for (const bad of [NaN, -Infinity, -3]) {
    const fn = function() {};
    Object.defineProperty(fn, 'length', {value: bad});
    assert.equal(AsyncContext.Snapshot.wrap(fn).length, 0);
  }
});

test('the TypeErrors for a bad fn say what was received', () => {
  const v = new AsyncContext.Variable();
  const s = new AsyncContext.Snapshot();
  for (const call of [() => v.run(1, 5), () => s.run(5),
                      () => AsyncContext.Snapshot.wrap(5)]) {
    assert.throws(call, {
      code: 'ERR_INVALID_ARG_TYPE',
      message: /^The "fn" argument must be of type function\. Received type number \(5\)$/,
    });
  }
});
