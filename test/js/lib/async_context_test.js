// TC39 AsyncContext (Variable, Snapshot) on the same frames as
// AsyncLocalStorage.

'use strict';

const {Variable, Snapshot} = AsyncContext;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

function isInvalidArgType(err) {
  return err instanceof TypeError && err.code === 'ERR_INVALID_ARG_TYPE';
}

// --- the namespace -----------------------------------------------------------

test('AsyncContext is an ordinary namespace with Variable and Snapshot', () => {
  assert.equal(typeof Variable, 'function');
  assert.equal(typeof Snapshot, 'function');
  assert.equal(Object.getPrototypeOf(AsyncContext), Object.prototype);
  assert(Object.isExtensible(AsyncContext));
  for (const name of ['Variable', 'Snapshot']) {
    const desc = Object.getOwnPropertyDescriptor(AsyncContext, name);
    assert.equal(desc.writable, true);
    assert.equal(desc.enumerable, false);
    assert.equal(desc.configurable, true);
  }
  const tag = Object.getOwnPropertyDescriptor(AsyncContext, Symbol.toStringTag);
  assert.equal(tag.value, 'AsyncContext');
  assert.equal(tag.enumerable, false);
  assert.deepEqual(Object.keys(AsyncContext), []);
  assert.equal(Object.prototype.toString.call(AsyncContext),
               '[object AsyncContext]');
  assert.equal(Object.prototype.toString.call(new Variable()),
               '[object AsyncContext.Variable]');
  assert.equal(Object.prototype.toString.call(new Snapshot()),
               '[object AsyncContext.Snapshot]');
});

test('Variable and Snapshot cannot be called without new', () => {
  assert.throws(() => Variable(), TypeError);
  assert.throws(() => Snapshot(), TypeError);
});

// --- Variable ----------------------------------------------------------------

test('Variable name is the name option, or the empty string', () => {
  assert.equal(new Variable().name, '');
  assert.equal(new Variable({}).name, '');
  assert.equal(new Variable({name: 'user'}).name, 'user');
  assert.equal(new Variable({name: 42}).name, '42');
});

test('Variable get returns the defaultValue outside any run', () => {
  const fallback = {};
  assert.equal(new Variable().get(), undefined);
  assert.equal(new Variable({defaultValue: fallback}).get(), fallback);
});

test('Variable run sets the value inside, restores it after, passes args ' +
         'and returns the result',
     () => {
       const v = new Variable({defaultValue: 'default'});
       const result = v.run('value', (a, b) => [v.get(), a, b], 1, 2);
       assert.deepEqual(result, ['value', 1, 2]);
       assert.equal(v.get(), 'default');
     });

test('Variable run(undefined) hides the defaultValue', () => {
  const v = new Variable({defaultValue: 'default'});
  assert.equal(v.run(undefined, () => v.get()), undefined);
});

test('nested Variable runs shadow and restore', () => {
  const v = new Variable();
  const w = new Variable({defaultValue: 'w default'});
  const seen = v.run(1, () => {
    const inner = v.run(2, () => w.run('w', () => [v.get(), w.get()]));
    return [inner, v.get(), w.get()];
  });
  assert.deepEqual(seen, [[2, 'w'], 1, 'w default']);
});

test('Variable run restores the value when the callback throws', () => {
  const v = new Variable();
  v.run('outer', () => {
    assert.throws(() => v.run('inner', () => {
      throw new Error('thrown');
    }), /thrown/);
    assert.equal(v.get(), 'outer');
  });
  assert.equal(v.get(), undefined);
});

test('Variable run with a non-function throws TypeError', () => {
  const v = new Variable();
  for (const value of [undefined, null, 1, 'f', {}, Symbol('s')]) {
    assert.throws(() => v.run('x', value), isInvalidArgType);
    assert.equal(v.get(), undefined);
  }
});

test('Variable values flow through await, then, microtasks and timers',
     async () => {
       const v = new Variable();
       const seen = await v.run('flow', async () => {
         const result = [];
         await null;
         result.push(v.get());
         result.push(await Promise.resolve().then(() => v.get()));
         result.push(await new Promise(
             (resolve) => queueMicrotask(() => resolve(v.get()))));
         result.push(await new Promise(
             (resolve) => setTimeout(() => resolve(v.get()), 0)));
         result.push(await new Promise(
             (resolve) => setImmediate(() => resolve(v.get()))));
         return result;
       });
       assert.deepEqual(seen, ['flow', 'flow', 'flow', 'flow', 'flow']);
       assert.equal(v.get(), undefined);
     });

test('Variable values in concurrent tasks stay apart', async () => {
  const v = new Variable();
  const task = (name, delay) => v.run(name, async () => {
    await tick(delay);
    return v.get();
  });
  assert.deepEqual(await Promise.all([task('a', 3), task('b', 0), task('c', 1)]),
                   ['a', 'b', 'c']);
});

// --- Snapshot ----------------------------------------------------------------

test('Snapshot captures the frame at construction', () => {
  const v = new Variable();
  const snapshot = v.run('captured', () => new Snapshot());
  const seen = v.run('caller', () => [snapshot.run(() => v.get()), v.get()]);
  assert.deepEqual(seen, ['captured', 'caller']);
});

test('Snapshot run passes the arguments and returns the result', () => {
  const v = new Variable();
  const snapshot = v.run('s', () => new Snapshot());
  assert.deepEqual(snapshot.run((a, b, c) => [v.get(), a, b, c], 1, 2, 3),
                   ['s', 1, 2, 3]);
});

test('Snapshot run restores the caller frame when the callback throws', () => {
  const v = new Variable();
  const snapshot = v.run('s', () => new Snapshot());
  v.run('caller', () => {
    assert.throws(() => snapshot.run(() => {
      throw new Error('from snapshot');
    }), /from snapshot/);
    assert.equal(v.get(), 'caller');
  });
});

test('a root Snapshot hides every value', () => {
  const v = new Variable({defaultValue: 'd'});
  const snapshot = new Snapshot();
  assert.equal(v.run('x', () => snapshot.run(() => v.get())), 'd');
});

test('Snapshot run with a non-function throws TypeError', () => {
  const snapshot = new Snapshot();
  assert.throws(() => snapshot.run(5), isInvalidArgType);
  assert.throws(() => snapshot.run(), isInvalidArgType);
});

test('Snapshot.wrap runs fn in the wrapping frame and keeps this and args',
     () => {
       const v = new Variable();
       const wrapped = v.run('wrap', () => Snapshot.wrap(function(a, b) {
         return [v.get(), this, a, b];
       }));
       const receiver = {name: 'receiver'};
       const seen = v.run('caller', () => wrapped.call(receiver, 1, 2));
       assert.deepEqual(seen, ['wrap', receiver, 1, 2]);
       const method = {wrapped};
       assert.equal(method.wrapped()[1], method);
       assert.equal(v.get(), undefined);
     });

test('Snapshot.wrap keeps length and names the wrapper', () => {
  const wrapped = Snapshot.wrap(function original(a, b, c) {});
  assert.equal(wrapped.length, 3);
  assert.equal(wrapped.name, 'wrapped original');
});

test('Snapshot.wrap restores the frame when fn throws', () => {
  const v = new Variable();
  const wrapped = v.run('wrap', () => Snapshot.wrap(() => {
    throw new Error('wrapped throw');
  }));
  v.run('caller', () => {
    assert.throws(wrapped, /wrapped throw/);
    assert.equal(v.get(), 'caller');
  });
});

test('Snapshot.wrap with a non-function throws TypeError', () => {
  for (const value of [undefined, null, 1, 'f', {}]) {
    assert.throws(() => Snapshot.wrap(value), isInvalidArgType);
  }
});

test('async work started inside Snapshot run keeps the snapshot frame',
     async () => {
       const v = new Variable();
       const snapshot = v.run('snap', () => new Snapshot());
       const seen = await v.run('caller', () => snapshot.run(
           () => new Promise((resolve) => setTimeout(() => resolve(v.get()), 0))));
       assert.equal(seen, 'snap');
     });

// --- shared frames with AsyncLocalStorage ------------------------------------

test('a Snapshot taken inside als.run restores the ALS store', () => {
  const als = new AsyncLocalStorage();
  const snapshot = als.run('store', () => new Snapshot());
  assert.equal(snapshot.run(() => als.getStore()), 'store');
  assert.equal(als.run('other', () => snapshot.run(() => als.getStore())),
               'store');
});

test('AsyncLocalStorage.snapshot restores Variables too', () => {
  const v = new Variable();
  const snapshot = v.run('var', () => AsyncLocalStorage.snapshot());
  assert.equal(snapshot(() => v.get()), 'var');
});

test('ALS stores and Variables nest in one frame', async () => {
  const als = new AsyncLocalStorage();
  const v = new Variable();
  const seen = await als.run('store', () => v.run('var', async () => {
    await tick();
    return [als.getStore(), v.get(), als.exit(() => [als.getStore(), v.get()])];
  }));
  assert.deepEqual(seen, ['store', 'var', [undefined, 'var']]);
});

test('enterWith inside Variable run is undone when run returns', () => {
  const als = new AsyncLocalStorage();
  const v = new Variable();
  v.run('v', () => {
    als.enterWith('entered');
    assert.equal(als.getStore(), 'entered');
    assert.equal(v.get(), 'v');
  });
  assert.equal(als.getStore(), undefined);
});

test('an AsyncResource sees the Variables of its construction frame', () => {
  const v = new Variable();
  const resource = v.run('resource', () => new AsyncResource('Var'));
  assert.equal(v.run('caller', () => resource.runInAsyncScope(() => v.get())),
               'resource');
});

// --- generators --------------------------------------------------------------

// V8 10.2 does not capture the frame in generator objects: a generator body
// sees the frame of whoever calls next(). The TC39 proposal asks generators
// to keep the frame of their creation; that needs V8 support we do not have.
test('a generator body sees the frame of the caller of next() (V8 10.2; ' +
         'TC39 asks for the creation frame)',
     () => {
       const v = new Variable({defaultValue: 'root'});
       function* gen() {
         yield v.get();
         yield v.get();
         yield v.get();
       }
       const it = v.run('creation', () => gen());
       const first = v.run('first next', () => it.next().value);
       const second = it.next().value;
       const third = v.run('third next', () => it.next().value);
       assert.deepEqual([first, second, third],
                        ['first next', 'root', 'third next']);
     });

test('Variable run inside a generator body is undone at yield', () => {
  const v = new Variable();
  function* gen() {
    yield v.run('inside', () => v.get());
    yield v.get();
  }
  const it = gen();
  assert.deepEqual([it.next().value, v.get(), it.next().value],
                   ['inside', undefined, undefined]);
});
