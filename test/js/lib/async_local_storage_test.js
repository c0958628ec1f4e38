// AsyncLocalStorage: run / exit / enterWith / getStore / disable / bind /
// snapshot, options, validation, and faults (throws, stack overflow).
//
// Node.js is the reference; where we differ on purpose the case says so.
// Memory (1e6 runs, collected instances) is in
// async_local_storage_gc_expect.js, which needs --expose-gc.

'use strict';

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

// Values that are not functions, for the validation cases.
const notFunctions = [undefined, null, 0, 1, 'fn', true, {}, [], Symbol('s'),
                      1n, new Map()];

function isInvalidArgType(name) {
  return (err) => err instanceof TypeError &&
      err.code === 'ERR_INVALID_ARG_TYPE' &&
      err.message.startsWith(`The "${name}" argument must be of type `);
}

// --- getStore / run ----------------------------------------------------------

test('getStore is undefined outside any run', () => {
  const als = new AsyncLocalStorage();
  assert.equal(als.getStore(), undefined);
});

test('run makes the store visible inside and restores it afterwards', () => {
  const als = new AsyncLocalStorage();
  const store = {id: 1};
  let inside;
  als.run(store, () => {
    inside = als.getStore();
  });
  assert.equal(inside, store);
  assert.equal(als.getStore(), undefined);
});

test('run returns the callback result and passes the extra arguments', () => {
  const als = new AsyncLocalStorage();
  const result = als.run('s', (a, b, c) => [als.getStore(), a, b, c], 1, 'two',
                         3);
  assert.deepEqual(result, ['s', 1, 'two', 3]);
});

// Node 24: `node -e "const {AsyncLocalStorage: A} = require('async_hooks');
// new A().run(1, function() { 'use strict'; console.log(this); })"` prints
// null (a sloppy function sees globalThis).
test('run and exit call the callback with this null', () => {
  const als = new AsyncLocalStorage();
  let self = 'unset';
  als.run(1, function() {
    'use strict';
    self = this;
  });
  assert.equal(self, null);
  self = 'unset';
  als.exit(function() {
    'use strict';
    self = this;
  });
  assert.equal(self, null);
  // A sloppy-mode function (this file is strict) sees globalThis.
  assert.equal(als.run(1, new Function('return this')), globalThis);
});

test('nested run of the same instance shadows and restores', () => {
  const als = new AsyncLocalStorage();
  const seen = [];
  als.run('outer', () => {
    seen.push(als.getStore());
    als.run('inner', () => {
      seen.push(als.getStore());
      als.run('innermost', () => seen.push(als.getStore()));
      seen.push(als.getStore());
    });
    seen.push(als.getStore());
  });
  seen.push(als.getStore());
  assert.deepEqual(seen,
                   ['outer', 'inner', 'innermost', 'inner', 'outer', undefined]);
});

test('instances are independent and both visible when nested', () => {
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  const seen = a.run('A', () => b.run('B', () => [a.getStore(), b.getStore()]));
  assert.deepEqual(seen, ['A', 'B']);
  assert.deepEqual(a.run('A2', () => [a.getStore(), b.getStore()]),
                   ['A2', undefined]);
  assert.equal(a.getStore(), undefined);
  assert.equal(b.getStore(), undefined);
});

test('falsy and primitive stores are kept as they are', () => {
  const als = new AsyncLocalStorage();
  for (const value of [0, -0, '', false, null, NaN, 7n, Symbol.iterator]) {
    assert.equal(als.run(value, () => als.getStore()), value);
  }
});

test('run restores the previous store when the callback throws', () => {
  const als = new AsyncLocalStorage();
  const error = new Error('boom');
  als.run('outer', () => {
    const caught = assert.throws(() => als.run('inner', () => {
      throw error;
    }));
    assert.equal(caught, error);
    assert.equal(als.getStore(), 'outer');
  });
  assert.equal(als.getStore(), undefined);
});

test('10 nested runs are each restored when the innermost throws', () => {
  const als = new AsyncLocalStorage();
  const other = new AsyncLocalStorage();
  const restored = [];
  function level(n) {
    if (n === 10) throw new Error('innermost');
    try {
      als.run(n + 1, level, n + 1);
    } finally {
      restored.push([als.getStore(), other.getStore()]);
    }
  }
  other.run('other', () => {
    assert.throws(() => als.run(0, level, 0), /innermost/);
    assert.equal(als.getStore(), undefined);
    assert.equal(other.getStore(), 'other');
  });
  assert.deepEqual(restored, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map(
      (n) => [n, 'other']));
  assert.equal(other.getStore(), undefined);
});

test('stack overflow inside run is a catchable RangeError, frame restored',
     () => {
       const als = new AsyncLocalStorage();
       function forever() {
         return forever() + 1;
       }
       als.run('outer', () => {
         const err = assert.throws(() => als.run('inner', forever), RangeError);
         assert.match(err.message, /call stack/i);
         assert.equal(als.getStore(), 'outer');
       });
       assert.equal(als.getStore(), undefined);
     });

test('stack overflow from recursive runs is a RangeError, every frame restored',
     () => {
       const als = new AsyncLocalStorage();
       const marker = new AsyncLocalStorage();
       // Different frame sizes make the overflow hit different points inside
       // run (entry, building the frame, the native setFrame, the finally).
       for (let pad = 0; pad < 12; pad++) {
         let depth = 0;
         let maxDepth = 0;
         const recurse = (...padding) => {
           depth++;
           if (depth > maxDepth) maxDepth = depth;
           try {
             return als.run(depth, recurse, ...padding);
           } finally {
             depth--;
           }
         };
         marker.run('marker', () => {
           als.run('outer', () => {
             assert.throws(() => recurse(...new Array(pad).fill(pad)),
                           RangeError);
             assert.equal(als.getStore(), 'outer', 'pad ' + pad);
             assert.equal(marker.getStore(), 'marker', 'pad ' + pad);
           });
         });
         assert(maxDepth > 100, 'recursed ' + maxDepth + ' deep');
         assert.equal(als.getStore(), undefined);
         // The library still works after the overflow.
         assert.equal(als.run('after', () => als.getStore()), 'after');
       }
     });

test('run with a non-function callback throws ERR_INVALID_ARG_TYPE and ' +
         'changes nothing',
     () => {
       const als = new AsyncLocalStorage();
       for (const value of notFunctions) {
         assert.throws(() => als.run('store', value),
                       isInvalidArgType('callback'));
         assert.equal(als.getStore(), undefined);
       }
       als.run('outer', () => {
         assert.throws(() => als.run('inner', 42), TypeError);
         assert.equal(als.getStore(), 'outer');
       });
     });

// --- exit --------------------------------------------------------------------

test('exit hides the store inside and restores it afterwards', () => {
  const als = new AsyncLocalStorage();
  als.run('s', () => {
    const result = als.exit((a, b) => [als.getStore(), a, b], 1, 2);
    assert.deepEqual(result, [undefined, 1, 2]);
    assert.equal(als.getStore(), 's');
  });
});

test('exit hides only its own instance', () => {
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  a.run('A', () => b.run('B', () => {
    assert.deepEqual(a.exit(() => [a.getStore(), b.getStore()]),
                     [undefined, 'B']);
    assert.deepEqual([a.getStore(), b.getStore()], ['A', 'B']);
  }));
});

test('exit restores the store when the callback throws', () => {
  const als = new AsyncLocalStorage();
  als.run('s', () => {
    assert.throws(() => als.exit(() => {
      throw new Error('x');
    }), /x/);
    assert.equal(als.getStore(), 's');
  });
});

test('exit hides the store from async work started inside it', async () => {
  const als = new AsyncLocalStorage();
  const seen = {};
  let done;
  await als.run('s', () => {
    als.exit(() => {
      Promise.resolve().then(() => {
        seen.then = als.getStore();
      });
      queueMicrotask(() => {
        seen.microtask = als.getStore();
      });
      done = new Promise((resolve) => setTimeout(() => {
        seen.timeout = als.getStore();
        resolve();
      }, 1));
    });
    return done;
  });
  assert.deepEqual(seen,
                   {then: undefined, microtask: undefined, timeout: undefined});
});

test('exit outside any run is a plain call', () => {
  const als = new AsyncLocalStorage();
  assert.equal(als.exit(() => als.getStore()), undefined);
  assert.equal(als.exit((x) => x * 2, 21), 42);
});

test('exit with a non-function callback throws ERR_INVALID_ARG_TYPE', () => {
  const als = new AsyncLocalStorage();
  for (const value of notFunctions) {
    assert.throws(() => als.exit(value), isInvalidArgType('callback'));
  }
  // The message names what was received, as run's does.
  assert.equal(assert.throws(() => als.exit(5)).message,
               'The "callback" argument must be of type function. ' +
                   'Received type number (5)');
});

// --- enterWith ---------------------------------------------------------------

test('enterWith lasts for the rest of the synchronous execution', () => {
  const als = new AsyncLocalStorage();
  const store = {};
  als.enterWith(store);
  assert.equal(als.getStore(), store);
  (function nested() {
    assert.equal(als.getStore(), store);
  })();
  als.enterWith('second');
  assert.equal(als.getStore(), 'second');
});

test('enterWith inside run is undone when run returns', () => {
  const als = new AsyncLocalStorage();
  als.run('run', () => {
    als.enterWith('entered');
    assert.equal(als.getStore(), 'entered');
  });
  assert.equal(als.getStore(), undefined);
});

test('a.run(1, () => b.enterWith(2)) leaves b unset afterwards ' +
         '(deliberate difference from Node, which leaks 2)',
     () => {
       const a = new AsyncLocalStorage();
       const b = new AsyncLocalStorage();
       let inside;
       a.run(1, () => {
         b.enterWith(2);
         inside = [a.getStore(), b.getStore()];
       });
       assert.deepEqual(inside, [1, 2]);
       assert.equal(b.getStore(), undefined);
       assert.equal(a.getStore(), undefined);
     });

test('enterWith is seen by async work started after it', async () => {
  const als = new AsyncLocalStorage();
  als.enterWith('entered');
  const fromThen = await Promise.resolve().then(() => als.getStore());
  const fromTimer = await new Promise(
      (resolve) => setTimeout(() => resolve(als.getStore()), 0));
  assert.equal(fromThen, 'entered');
  assert.equal(fromTimer, 'entered');
  assert.equal(als.getStore(), 'entered');
});

test('enterWith leaks to the caller of an async function before its first ' +
         'await',
     async () => {
       const als = new AsyncLocalStorage();
       let afterAwait;
       async function f() {
         als.enterWith('inner');
         await null;
         afterAwait = als.getStore();
       }
       const promise = f();
       assert.equal(als.getStore(), 'inner');
       await promise;
       assert.equal(afterAwait, 'inner');
     });

test('enterWith after the first await does not leak to the caller',
     async () => {
       const als = new AsyncLocalStorage();
       let resumed;
       async function f() {
         await null;
         als.enterWith('late');
         resumed = als.getStore();
       }
       als.run('caller', () => {
         const promise = f();
         assert.equal(als.getStore(), 'caller');
         return promise;
       });
       await tick();
       assert.equal(resumed, 'late');
       assert.equal(als.getStore(), undefined);
     });

test('enterWith in a timer callback never leaks into the next timer callback',
     async () => {
       const als = new AsyncLocalStorage();
       const seen = [];
       setTimeout(() => {
         als.enterWith('leak');
         seen.push(['first', als.getStore()]);
       }, 0);
       setTimeout(() => seen.push(['second', als.getStore()]), 0);
       setImmediate(() => seen.push(['immediate', als.getStore()]));
       await tick(5);
       assert.deepEqual(seen.filter(([name]) => name !== 'immediate'),
                        [['first', 'leak'], ['second', undefined]]);
       assert.deepEqual(seen.find(([name]) => name === 'immediate'),
                        ['immediate', undefined]);
     });

test('enterWith in a timer callback reaches its own microtasks only',
     async () => {
       const als = new AsyncLocalStorage();
       const seen = [];
       setTimeout(() => {
         als.enterWith('mine');
         Promise.resolve().then(() => seen.push(['then', als.getStore()]));
         queueMicrotask(() => seen.push(['microtask', als.getStore()]));
       }, 0);
       setTimeout(() => {
         seen.push(['next timer', als.getStore()]);
         Promise.resolve().then(() => seen.push(['next then', als.getStore()]));
       }, 0);
       await tick(5);
       assert.deepEqual(seen, [
         ['then', 'mine'], ['microtask', 'mine'], ['next timer', undefined],
         ['next then', undefined],
       ]);
     });

test('enterWith inside a promise reaction does not leak into later timers',
     async () => {
       const als = new AsyncLocalStorage();
       let later;
       setTimeout(() => {
         Promise.resolve().then(() => als.enterWith('from reaction'));
       }, 0);
       setTimeout(() => {
         later = als.getStore();
       }, 1);
       await tick(5);
       assert.equal(later, undefined);
     });

// --- options: defaultValue and name ------------------------------------------

test('defaultValue is returned where no run is active', () => {
  const fallback = {fallback: true};
  const als = new AsyncLocalStorage({defaultValue: fallback});
  assert.equal(als.getStore(), fallback);
  assert.equal(als.run('s', () => als.getStore()), 's');
  assert.equal(als.getStore(), fallback);
  const other = new AsyncLocalStorage();
  assert.equal(other.run(1, () => als.getStore()), fallback);
});

test('run(undefined) with a defaultValue gives undefined (a present key wins)',
     () => {
       const als = new AsyncLocalStorage({defaultValue: 'default'});
       assert.equal(als.run(undefined, () => als.getStore()), undefined);
       als.enterWith(undefined);
       assert.equal(als.getStore(), undefined);
     });

// Node 24 prints undefined for
// `const a = new AsyncLocalStorage({defaultValue: 'D'});
//  a.run(5, () => a.exit(() => console.log(a.getStore())))`.
test('exit with a defaultValue gives undefined inside, as Node 24',
     async () => {
       const als = new AsyncLocalStorage({defaultValue: 'default'});
       assert.equal(als.run('s', () => als.exit(() => als.getStore())),
                    undefined);
       assert.equal(als.exit(() => als.getStore()), undefined);
       const later = als.run('s', () => als.exit(() => Promise.resolve().then(
           () => als.getStore())));
       assert.equal(await later, undefined);
       assert.equal(als.getStore(), 'default');
     });

test('name is the name option, or the empty string', () => {
  assert.equal(new AsyncLocalStorage().name, '');
  assert.equal(new AsyncLocalStorage({}).name, '');
  assert.equal(new AsyncLocalStorage({name: 'request'}).name, 'request');
  assert.equal(new AsyncLocalStorage({defaultValue: 1}).name, '');
});

test('name is read-only', () => {
  const als = new AsyncLocalStorage({name: 'fixed'});
  assert.throws(() => {
    als.name = 'changed';
  }, TypeError);
  assert.equal(als.name, 'fixed');
});

test('non-object options throw ERR_INVALID_ARG_TYPE', () => {
  for (const value of [null, 0, 1, 'name', true, Symbol('s'), 1n, []]) {
    assert.throws(() => new AsyncLocalStorage(value),
                  isInvalidArgType('options'));
  }
  const err = assert.throws(() => new AsyncLocalStorage(5));
  assert.equal(err.message,
               'The "options" argument must be of type object. ' +
                   'Received type number (5)');
  assert.equal(
      assert.throws(() => new AsyncLocalStorage(null)).message,
      'The "options" argument must be of type object. Received null');
});

test('AsyncLocalStorage cannot be called without new', () => {
  assert.throws(() => AsyncLocalStorage(), TypeError);
});

test('AsyncLocalStorage is the same class on asyncHooks', () => {
  assert.equal(asyncHooks.AsyncLocalStorage, AsyncLocalStorage);
  assert(new AsyncLocalStorage() instanceof asyncHooks.AsyncLocalStorage);
});

// --- disable -----------------------------------------------------------------

test('disable makes getStore undefined until the next run', () => {
  const als = new AsyncLocalStorage();
  const other = new AsyncLocalStorage();
  als.run('s', () => other.run('o', () => {
    als.disable();
    assert.equal(als.getStore(), undefined);
    assert.equal(other.getStore(), 'o');
    assert.equal(als.run('again', () => als.getStore()), 'again');
  }));
  assert.equal(als.getStore(), undefined);
});

test('disable is instance-wide: async work of an earlier run sees undefined',
     async () => {
       const als = new AsyncLocalStorage();
       let fromThen = 'unset';
       let fromTimer = 'unset';
       let timerDone;
       const timerRan = new Promise((resolve) => {
         timerDone = resolve;
       });
       const reaction = als.run('s', () => {
         setTimeout(() => {
           fromTimer = als.getStore();
           timerDone();
         }, 1);
         return Promise.resolve().then(() => {
           fromThen = als.getStore();
         });
       });
       als.disable();
       await reaction;
       await timerRan;
       assert.equal(fromThen, undefined);
       assert.equal(fromTimer, undefined);
     });

// Node 24: after disable(), getStore() gives the defaultValue (the key is
// deleted from the current frame).
test('disable gives the defaultValue; enterWith re-enables', () => {
  const als = new AsyncLocalStorage({defaultValue: 'default'});
  als.run('s', () => {
    als.disable();
    assert.equal(als.getStore(), 'default');
  });
  als.disable();
  assert.equal(als.getStore(), 'default');
  als.enterWith('entered');
  assert.equal(als.getStore(), 'entered');
});

test('disable twice is harmless and returns undefined', () => {
  const als = new AsyncLocalStorage();
  assert.equal(als.disable(), undefined);
  assert.equal(als.disable(), undefined);
  assert.equal(als.run(3, () => als.getStore()), 3);
});

// --- static bind and snapshot ------------------------------------------------

test('AsyncLocalStorage.bind runs the function in the binding frame', () => {
  const als = new AsyncLocalStorage();
  const bound = als.run('bound', () => AsyncLocalStorage.bind(
      (a, b) => [als.getStore(), a, b]));
  assert.deepEqual(bound(1, 2), ['bound', 1, 2]);
  assert.deepEqual(als.run('caller', () => bound(3, 4)), ['bound', 3, 4]);
  assert.equal(als.getStore(), undefined);
});

test('AsyncLocalStorage.bind keeps length, the call-site this and ' +
         'restores on throw',
     () => {
       const als = new AsyncLocalStorage();
       const bound = als.run('b', () => AsyncLocalStorage.bind(
           function(x, y, z) {
             return this;
           }));
       assert.equal(bound.length, 3);
       const receiver = {};
       assert.equal(bound.call(receiver), receiver);
       assert(bound.asyncResource instanceof AsyncResource);
       const throwing = als.run('b', () => AsyncLocalStorage.bind(() => {
         throw new Error('bound throw');
       }));
       als.run('outer', () => {
         assert.throws(throwing, /bound throw/);
         assert.equal(als.getStore(), 'outer');
       });
     });

test('AsyncLocalStorage.bind with a non-function throws ERR_INVALID_ARG_TYPE',
     () => {
       for (const value of notFunctions) {
         assert.throws(() => AsyncLocalStorage.bind(value),
                       isInvalidArgType('fn'));
       }
     });

test('AsyncLocalStorage.snapshot runs callbacks in the snapshot frame', () => {
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  const snapshot = a.run('A', () => b.run('B', () => AsyncLocalStorage.snapshot()));
  const result = a.run('other', () => snapshot(
      (x, y) => [a.getStore(), b.getStore(), x, y], 1, 2));
  assert.deepEqual(result, ['A', 'B', 1, 2]);
  assert.equal(a.getStore(), undefined);
  assert.equal(b.getStore(), undefined);
});

// run is defined by the layer (not in the class body), with the descriptor
// of the class's other methods.
test('AsyncLocalStorage.prototype.run has a method\'s descriptor', () => {
  const describe = (name) => {
    const {writable, enumerable, configurable, value} =
        Object.getOwnPropertyDescriptor(AsyncLocalStorage.prototype, name);
    return [typeof value, writable, enumerable, configurable];
  };
  assert.deepEqual(describe('run'), ['function', true, false, true]);
  assert.deepEqual(describe('run'), describe('getStore'));
  assert(!Object.keys(AsyncLocalStorage.prototype).includes('run'));
});

// As Node.js's: a resource of type AsyncLocalStorageSnapshot, as a hook sees.
test('AsyncLocalStorage.snapshot makes an AsyncLocalStorageSnapshot resource',
     () => {
       const types = [];
       const hook = asyncHooks.createHook({
         init(asyncId, type) {
           types.push(type);
         },
       }).enable();
       let snapshot;
       try {
         snapshot = AsyncLocalStorage.snapshot();
       } finally {
         hook.disable();
       }
       assert.deepEqual(types, ['AsyncLocalStorageSnapshot']);
       assert.equal(snapshot((x) => x + 1, 4), 5);
     });

test('a snapshot taken at the root hides every store', () => {
  const als = new AsyncLocalStorage();
  const snapshot = AsyncLocalStorage.snapshot();
  als.run('s', () => {
    assert.equal(snapshot(() => als.getStore()), undefined);
    assert.equal(als.getStore(), 's');
  });
});

test('a snapshot restores the caller frame when the callback throws', () => {
  const als = new AsyncLocalStorage();
  const snapshot = als.run('snap', () => AsyncLocalStorage.snapshot());
  als.run('caller', () => {
    assert.throws(() => snapshot(() => {
      throw new Error('in snapshot');
    }), /in snapshot/);
    assert.equal(als.getStore(), 'caller');
  });
});

test('async work started inside a snapshot callback keeps the snapshot frame',
     async () => {
       const als = new AsyncLocalStorage();
       const snapshot = als.run('snap', () => AsyncLocalStorage.snapshot());
       const seen = await als.run('caller', () => snapshot(
           () => Promise.resolve().then(() => als.getStore())));
       assert.equal(seen, 'snap');
     });

// --- across await ------------------------------------------------------------

test('the store survives awaits inside run and concurrent runs stay apart',
     async () => {
       const als = new AsyncLocalStorage();
       async function request(id, delay) {
         return als.run(id, async () => {
           const seen = [als.getStore()];
           await tick(delay);
           seen.push(als.getStore());
           await null;
           seen.push(als.getStore());
           return seen;
         });
       }
       const results = await Promise.all(
           [request('a', 3), request('b', 1), request('c', 0)]);
       assert.deepEqual(results, [
         ['a', 'a', 'a'], ['b', 'b', 'b'], ['c', 'c', 'c'],
       ]);
       assert.equal(als.getStore(), undefined);
     });

test('many instances in one frame are all found', () => {
  const instances = [];
  for (let i = 0; i < 50; i++) instances.push(new AsyncLocalStorage());
  function nest(i) {
    if (i === instances.length) {
      return instances.map((als) => als.getStore());
    }
    return instances[i].run(i * 10, nest, i + 1);
  }
  const seen = nest(0);
  assert.deepEqual(seen, instances.map((_, i) => i * 10));
  assert.deepEqual(instances.map((als) => als.getStore()),
                   instances.map(() => undefined));
});
