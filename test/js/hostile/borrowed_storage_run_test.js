// AsyncLocalStorage.prototype.run put on something that is not an
// AsyncLocalStorage (an object, a function, a primitive through its
// prototype), then bound as a diagnostics_channel store: runStores must
// not take it for a storage. It calls that run, which throws the TypeError
// the same run throws when called on that value directly, and nothing runs.

'use strict';

const storageRun = AsyncLocalStorage.prototype.run;

function errorOfRun(value) {
  try {
    storageRun.call(value, 'v', () => {});
  } catch (err) {
    return err;
  }
  return undefined;
}

const cases = [
  ['an object', () => ({run: storageRun})],
  ['a function', () => Object.assign(function() {}, {run: storageRun})],
  ['a number', () => {
    Number.prototype.run = storageRun;
    return 5;
  }],
  ['a symbol', () => {
    Symbol.prototype.run = storageRun;
    return Symbol('store');
  }],
];

for (const [name, make] of cases) {
  test(`runStores with ${name} whose run is AsyncLocalStorage's throws ` +
       'what that run throws', () => {
    const value = make();
    const channel = diagnosticsChannel.channel(`borrowed run: ${name}`);
    channel.bindStore(value);
    let ran = false;
    try {
      const expected = errorOfRun(value);
      assert(expected instanceof TypeError, 'run on it throws a TypeError');
      const err = assert.throws(() => channel.runStores(1, () => {
        ran = true;
      }), TypeError);
      assert.equal(err.message, expected.message);
      assert.equal(ran, false);
    } finally {
      channel.unbindStore(value);
      delete Number.prototype.run;
      delete Symbol.prototype.run;
    }
  });
}
