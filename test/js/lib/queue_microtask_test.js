// queueMicrotask: validation, ordering against promise reactions (the same as
// a bare V8 microtask, with or without a store or a hook), frames. Uncaught
// exceptions are in queue_microtask_throw_expect.js.

'use strict';

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

test('queueMicrotask is a global function of length 1', () => {
  assert.equal(typeof queueMicrotask, 'function');
  assert.equal(queueMicrotask.length, 1);
  assert.equal(queueMicrotask(() => {}), undefined);
});

test('a non-function throws ERR_INVALID_ARG_TYPE and queues nothing',
     async () => {
       const als = new AsyncLocalStorage();
       const values = [undefined, null, 0, 'f', {}, [], Symbol('s'), 1n,
                       Promise.resolve()];
       const order = [];
       // Checked against a reaction queued before and one after: had a bad
       // call queued something, it would run (and throw) in between.
       Promise.resolve().then(() => order.push('first'));
       for (const value of values) {
         const err = assert.throws(() => queueMicrotask(value), TypeError);
         assert.equal(err.code, 'ERR_INVALID_ARG_TYPE');
         assert.match(err.message,
                      /^The "callback" argument must be of type function\./);
         als.run('s', () => assert.throws(() => queueMicrotask(value),
                                          TypeError));
       }
       Promise.resolve().then(() => order.push('last'));
       await tick();
       assert.deepEqual(order, ['first', 'last']);
     });

test('a non-function throws with Node\'s wording', () => {
  assert.equal(assert.throws(() => queueMicrotask(5)).message,
               'The "callback" argument must be of type function. ' +
                   'Received type number (5)');
  assert.equal(assert.throws(() => queueMicrotask()).message,
               'The "callback" argument must be of type function. ' +
                   'Received undefined');
});

test('the callback gets no arguments and an undefined this', async () => {
  const als = new AsyncLocalStorage();
  const seen = [];
  const record = function(...args) {
    seen.push([this, args.length]);
  };
  queueMicrotask(record);
  als.run('s', () => queueMicrotask(record));
  await tick();
  assert.deepEqual(seen, [[undefined, 0], [undefined, 0]]);
});

// The order a bare microtask gets relative to promise reactions: FIFO in the
// one V8 microtask queue.
async function interleaving(wrap) {
  const order = [];
  await new Promise((resolve) => setTimeout(() => {
    wrap(() => {
      queueMicrotask(() => order.push('q1'));
      Promise.resolve().then(() => {
        order.push('p1');
        queueMicrotask(() => order.push('q3 from p1'));
        Promise.resolve().then(() => order.push('p3 from p1'));
      });
      queueMicrotask(() => {
        order.push('q2');
        Promise.resolve().then(() => order.push('p4 from q2'));
        queueMicrotask(() => order.push('q4 from q2'));
      });
      Promise.resolve().then(() => order.push('p2'));
    });
    setTimeout(resolve, 0);
  }, 0));
  return order;
}

const expectedOrder = ['q1', 'p1', 'q2', 'p2', 'q3 from p1', 'p3 from p1',
                       'p4 from q2', 'q4 from q2'];

test('FIFO order with promise reactions at the root is V8\'s', async () => {
  assert.deepEqual(await interleaving((fn) => fn()), expectedOrder);
});

test('FIFO order with promise reactions inside run is the same', async () => {
  const als = new AsyncLocalStorage();
  assert.deepEqual(await interleaving((fn) => als.run('s', fn)),
                   expectedOrder);
});

test('FIFO order with promise reactions with a hook enabled is the same',
     async () => {
       const hook = asyncHooks.createHook({init() {}, before() {}, after() {}});
       try {
         hook.enable();
         assert.deepEqual(await interleaving((fn) => fn()), expectedOrder);
       } finally {
         hook.disable();
       }
     });

test('microtasks run before the next timer', async () => {
  const order = [];
  await new Promise((resolve) => setTimeout(() => {
    setTimeout(() => {
      order.push('timer');
      resolve();
    }, 0);
    queueMicrotask(() => {
      order.push('micro 1');
      queueMicrotask(() => order.push('micro 2'));
    });
  }, 0));
  assert.deepEqual(order, ['micro 1', 'micro 2', 'timer']);
});

test('each microtask runs in the frame of its queueMicrotask call',
     async () => {
       const als = new AsyncLocalStorage();
       const v = new AsyncContext.Variable();
       const seen = [];
       const record = () => seen.push([als.getStore(), v.get()]);
       queueMicrotask(record);
       als.run('a', () => {
         queueMicrotask(record);
         v.run('v', () => queueMicrotask(record));
       });
       queueMicrotask(record);
       v.run('only v', () => queueMicrotask(record));
       await tick();
       assert.deepEqual(seen, [
         [undefined, undefined], ['a', undefined], ['a', 'v'],
         [undefined, undefined], [undefined, 'only v'],
       ]);
     });

test('the frame of the code that drains the queue is not seen', async () => {
  const als = new AsyncLocalStorage();
  let seen = 'unset';
  queueMicrotask(() => {
    seen = als.getStore();
  });
  // This case's remaining synchronous code enters a store; the microtask,
  // queued at the root, runs after it.
  als.enterWith('synchronous caller');
  await tick();
  assert.equal(seen, undefined);
});

test('a microtask throwing inside run would not change the caller frame',
     async () => {
       // The throwing case itself is an expect file (it is fatal in the
       // shell); here the wrapper's restore is checked with a callback that
       // changes the frame.
       const als = new AsyncLocalStorage();
       const seen = [];
       als.run('outer', () => {
         queueMicrotask(() => als.run('inner', () => {
           als.enterWith('entered');
         }));
         queueMicrotask(() => seen.push(als.getStore()));
       });
       await tick();
       assert.deepEqual(seen, ['outer']);
     });

test('100,000 microtasks queued inside run all see the store', async () => {
  const als = new AsyncLocalStorage();
  let count = 0;
  als.run('many', () => {
    for (let i = 0; i < 1e5; i++) {
      queueMicrotask(() => {
        if (als.getStore() === 'many') count++;
      });
    }
  });
  await tick();
  assert.equal(count, 1e5);
});

test('a chain of 100,000 microtasks each queuing the next keeps the store',
     async () => {
       const als = new AsyncLocalStorage();
       const count = await new Promise((resolve) => {
         let n = 0;
         function step() {
           if (als.getStore() !== 'chain') return resolve(-n);
           if (++n === 1e5) return resolve(n);
           queueMicrotask(step);
         }
         als.run('chain', () => queueMicrotask(step));
       });
       assert.equal(count, 1e5);
     });

// The FIFO of wrapped callbacks is a ring bounded by what is pending. Two
// interleaved chains inside a store never let it drain (an unbounded queue
// would grow by one entry per microtask ever run); each callback must still run once, in order, in its own frame, across
// the ring's growth and wrap-around.
test('interleaved queueMicrotask chains in a store run in order ' +
     'and in their frames', async () => {
  const als = new AsyncLocalStorage();
  const seen = {a: [], b: []};
  let wrong = 0;
  function chain(name, n, resolve) {
    let i = 0;
    function step() {
      if (als.getStore() !== name) wrong++;
      seen[name].push(i);
      if (++i < n) {
        queueMicrotask(step);
        // A burst now and then makes the ring grow while it wraps.
        if (i % 1000 === 0) {
          for (let k = 0; k < 100; k++) queueMicrotask(() => {
            if (als.getStore() !== name) wrong++;
          });
        }
      } else {
        resolve();
      }
    }
    als.run(name, () => queueMicrotask(step));
  }
  await Promise.all([
    new Promise((resolve) => chain('a', 20000, resolve)),
    new Promise((resolve) => chain('b', 20000, resolve)),
  ]);
  assert.equal(wrong, 0);
  assert.equal(seen.a.length, 20000);
  assert.equal(seen.b.length, 20000);
  assert(seen.a.every((v, i) => v === i), 'chain a in order');
});

// More than a chunk of the ring (1,024 callbacks) pending all the time: the
// tail needs a new chunk again before the head has left the one after the
// spare, so a chunk must never serve twice at once.
test('1,500 queueMicrotask callbacks pending at all times in a store run ' +
     'once each, in order', async () => {
  const als = new AsyncLocalStorage();
  const kPending = 1500;
  const kTotal = 8000;
  const seen = [];
  let wrong = 0;
  let next = 0;
  await new Promise((resolve) => {
    function queue() {
      const id = next++;
      queueMicrotask(() => {
        if (als.getStore() !== 'ring') wrong++;
        seen.push(id);
        if (next < kTotal) queue();
        if (seen.length === kTotal) resolve();
      });
    }
    als.run('ring', () => {
      for (let i = 0; i < kPending; i++) queue();
    });
  });
  assert.equal(wrong, 0);
  assert.equal(seen.length, kTotal);
  assert(seen.every((v, i) => v === i), 'in order');
});
