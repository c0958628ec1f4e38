// AsyncResource and the execution ids (executionAsyncId, triggerAsyncId,
// executionAsyncResource), in JavaScript and for the shell's timers.
// Hook events for resources are in hooks_test.js.

'use strict';

const {executionAsyncId, triggerAsyncId, executionAsyncResource} = asyncHooks;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

function ids() {
  return [executionAsyncId(), triggerAsyncId()];
}

// --- recorded at the top level of the script, checked by cases below --------

const topLevel = {
  ids: ids(),
  resource: executionAsyncResource(),
  resourceAgain: executionAsyncResource(),
};

// 10,000 nested runInAsyncScope calls, each on its own resource, and then
// unbounded nesting that must overflow the stack; both at the top level so
// that "back to the top" means executionAsyncId() === 1.
const deep = {};
{
  function nest(n) {
    if (n === 0) return [executionAsyncId(), insideAResource()];
    return new AsyncResource('Deep').runInAsyncScope(nest, null, n - 1);
  }
  function insideAResource() {
    return executionAsyncResource() instanceof AsyncResource;
  }
  try {
    deep.result10k = nest(10000);
  } catch (err) {
    deep.error10k = err;
  }
  deep.after10k = ids();
  deep.resourceAfter10k = executionAsyncResource();

  // Unbounded, with several frame sizes so the overflow lands at different
  // points inside runInAsyncScope (entry, push, setFrame, the finally).
  deep.unbounded = [];
  for (let pad = 0; pad < 12; pad++) {
    const resource = new AsyncResource('Unbounded');
    let depth = 0;
    const forever = (...padding) => {
      depth++;
      return resource.runInAsyncScope(forever, null, ...padding);
    };
    let error;
    try {
      forever(...new Array(pad).fill(0));
    } catch (err) {
      error = err;
    }
    deep.unbounded.push({
      pad,
      isRangeError: error instanceof RangeError,
      deepEnough: depth > 100,
      ids: ids(),
    });
  }
  deep.finalIds = ids();
  const after = new AsyncResource('After');
  deep.worksAfter = after.runInAsyncScope(
      () => [executionAsyncId() === after.asyncId(), triggerAsyncId()]);
}

test('executionAsyncId() is 1 and triggerAsyncId() 0 at the script top level',
     () => {
       assert.deepEqual(topLevel.ids, [1, 0]);
     });

test('executionAsyncResource() at the top level is one stable object', () => {
  assert.equal(typeof topLevel.resource, 'object');
  assert.notEqual(topLevel.resource, null);
  assert.equal(topLevel.resource, topLevel.resourceAgain);
  assert(!(topLevel.resource instanceof AsyncResource));
});

test('10,000-deep nested runInAsyncScope completes or throws a RangeError, ' +
         'and leaves executionAsyncId() at 1',
     () => {
       if (deep.error10k !== undefined) {
         assert(deep.error10k instanceof RangeError,
                'threw ' + deep.error10k);
       } else {
         assert.equal(typeof deep.result10k[0], 'number');
         assert(deep.result10k[0] > 1);
         assert.equal(deep.result10k[1], true);
       }
       assert.deepEqual(deep.after10k, [1, 0]);
       assert.equal(deep.resourceAfter10k, topLevel.resource);
     });

test('unbounded nested runInAsyncScope is a catchable RangeError that ' +
         'leaves the stack at the top level',
     () => {
       assert.deepEqual(deep.unbounded.filter(
           (r) => !r.isRangeError || !r.deepEnough ||
               r.ids[0] !== 1 || r.ids[1] !== 0), []);
       assert.deepEqual(deep.finalIds, [1, 0]);
       assert.deepEqual(deep.worksAfter, [true, 1]);
     });

// --- construction and validation ---------------------------------------------

test('AsyncResource is the same class on asyncHooks', () => {
  assert.equal(asyncHooks.AsyncResource, AsyncResource);
});

test('calling AsyncResource without new throws TypeError', () => {
  assert.throws(() => AsyncResource('X'), TypeError);
});

test('a non-string type throws ERR_INVALID_ARG_TYPE with Node\'s wording',
     () => {
       const cases = [
         [1, 'Received type number (1)'],
         [null, 'Received null'],
         [undefined, 'Received undefined'],
         [{}, 'Received an instance of Object'],
         [[], 'Received an instance of Array'],
         [new Map(), 'Received an instance of Map'],
         [Symbol('s'), 'Received type symbol (Symbol(s))'],
         [1n, 'Received type bigint (1n)'],
         [true, 'Received type boolean (true)'],
         [function foo() {}, 'Received function foo'],
       ];
       for (const [value, received] of cases) {
         const err = assert.throws(() => new AsyncResource(value), TypeError);
         assert.equal(err.code, 'ERR_INVALID_ARG_TYPE');
         assert.equal(err.message,
                      'The "type" argument must be of type string. ' + received);
       }
     });

test('a triggerAsyncId that is not a safe integer >= -1 throws ' +
         'ERR_INVALID_ASYNC_ID',
     () => {
       const cases = [-2, 1.5, NaN, Infinity, -Infinity, '3', 2 ** 53, null];
       for (const value of cases) {
         const err = assert.throws(
             () => new AsyncResource('X', {triggerAsyncId: value}), RangeError);
         assert.equal(err.code, 'ERR_INVALID_ASYNC_ID');
         assert.equal(err.message, 'Invalid triggerAsyncId value: ' + value);
       }
       const err = assert.throws(() => new AsyncResource('X', -2), RangeError);
       assert.equal(err.code, 'ERR_INVALID_ASYNC_ID');
       assert.equal(err.message, 'Invalid triggerAsyncId value: -2');
     });

test('a failed construction takes no async id', () => {
  const before = new AsyncResource('Before').asyncId();
  assert.throws(() => new AsyncResource(1));
  assert.throws(() => new AsyncResource('X', -5));
  const after = new AsyncResource('After').asyncId();
  assert.equal(after, before + 1);
});

test('options as a number is the triggerAsyncId', () => {
  assert.equal(new AsyncResource('X', 42).triggerAsyncId(), 42);
  assert.equal(new AsyncResource('X', 0).triggerAsyncId(), 0);
  assert.equal(new AsyncResource('X', -1).triggerAsyncId(), -1);
});

test('options object triggerAsyncId and the default trigger', () => {
  assert.equal(new AsyncResource('X', {triggerAsyncId: 7}).triggerAsyncId(), 7);
  assert.equal(new AsyncResource('X', {}).triggerAsyncId(), executionAsyncId());
  assert.equal(new AsyncResource('X').triggerAsyncId(), executionAsyncId());
  assert.equal(
      new AsyncResource('X', {requireManualDestroy: true}).triggerAsyncId(),
      executionAsyncId());
});

test('async ids are unique, increasing, and never the current id', () => {
  const seen = new Set();
  let last = executionAsyncId();
  for (let i = 0; i < 1000; i++) {
    const id = new AsyncResource('X').asyncId();
    assert(id > last, `${id} after ${last}`);
    assert(Number.isSafeInteger(id));
    seen.add(id);
    last = id;
  }
  assert.equal(seen.size, 1000);
});

test('an empty type is allowed while no init hook is enabled', () => {
  const resource = new AsyncResource('');
  assert.equal(typeof resource.asyncId(), 'number');
});

// --- runInAsyncScope ---------------------------------------------------------

test('runInAsyncScope returns the result and passes this and the arguments',
     () => {
       const resource = new AsyncResource('Run');
       const receiver = {};
       const result = resource.runInAsyncScope(function(a, b) {
         return [this, a, b];
       }, receiver, 1, 2);
       assert.deepEqual(result, [receiver, 1, 2]);
       assert.equal(result[0], receiver);
       assert.equal(resource.runInAsyncScope(function() {
         return this;
       }), undefined);
     });

test('inside runInAsyncScope the ids and resource are the resource\'s', () => {
  const outer = ids();
  const resource = new AsyncResource('Ids', {triggerAsyncId: 123});
  const inside = resource.runInAsyncScope(() => [
    executionAsyncId(), triggerAsyncId(), executionAsyncResource(),
  ]);
  assert.deepEqual(inside, [resource.asyncId(), 123, resource]);
  assert.equal(inside[2], resource);
  assert.deepEqual(ids(), outer);
});

test('a resource made inside runInAsyncScope is triggered by it', () => {
  const parent = new AsyncResource('Parent');
  const child = parent.runInAsyncScope(() => new AsyncResource('Child'));
  assert.equal(child.triggerAsyncId(), parent.asyncId());
  const grandchild = child.runInAsyncScope(() => new AsyncResource('G'));
  assert.equal(grandchild.triggerAsyncId(), child.asyncId());
});

test('runInAsyncScope restores ids and resources when fn throws three deep',
     () => {
       const outer = [...ids(), executionAsyncResource()];
       const r1 = new AsyncResource('One');
       const r2 = new AsyncResource('Two');
       const r3 = new AsyncResource('Three');
       const seen = [];
       const error = new Error('three deep');
       const thrown = assert.throws(() => r1.runInAsyncScope(() => {
         try {
           r2.runInAsyncScope(() => {
             try {
               r3.runInAsyncScope(() => {
                 throw error;
               });
             } finally {
               seen.push([executionAsyncId(), executionAsyncResource()]);
             }
           });
         } finally {
           seen.push([executionAsyncId(), executionAsyncResource()]);
         }
       }));
       assert.equal(thrown, error);
       assert.deepEqual(seen, [[r2.asyncId(), r2], [r1.asyncId(), r1]]);
       assert.equal(seen[0][1], r2);
       assert.equal(seen[1][1], r1);
       assert.deepEqual([...ids(), executionAsyncResource()], outer);
     });

test('runInAsyncScope can re-enter the same resource', () => {
  const resource = new AsyncResource('Reentrant');
  const result = resource.runInAsyncScope(
      () => resource.runInAsyncScope(() => executionAsyncId()));
  assert.equal(result, resource.asyncId());
});

test('runInAsyncScope with a non-function throws ERR_INVALID_ARG_TYPE and ' +
         'leaves the ids alone',
     () => {
       const resource = new AsyncResource('Bad');
       const outer = ids();
       const received = ['undefined', 'null', 'type number (1)',
                         "type string ('f')", 'an instance of Object'];
       const values = [undefined, null, 1, 'f', {}];
       for (let i = 0; i < values.length; i++) {
         const err = assert.throws(() => resource.runInAsyncScope(values[i]),
                                   TypeError);
         assert.equal(err.code, 'ERR_INVALID_ARG_TYPE');
         // Node's wording for the argument (Node 24 itself lets
         // Function.prototype.apply throw here).
         assert.equal(err.message, 'The "fn" argument must be of type ' +
                                       `function. Received ${received[i]}`);
         assert.deepEqual(ids(), outer);
       }
     });

test('emitDestroy returns the resource and a second call is harmless', () => {
  const resource = new AsyncResource('Destroy');
  assert.equal(resource.emitDestroy(), resource);
  assert.equal(resource.emitDestroy(), resource);
  // Still usable (Node allows it too).
  assert.equal(resource.runInAsyncScope(() => executionAsyncId()),
               resource.asyncId());
});

// --- bind --------------------------------------------------------------------

test('bind runs fn inside the resource, keeps length and has asyncResource',
     () => {
       const resource = new AsyncResource('Bind');
       const bound = resource.bind(function(a, b, c) {
         return [executionAsyncId(), a, b, c];
       });
       assert.equal(bound.length, 3);
       assert.equal(bound.asyncResource, resource);
       assert.deepEqual(bound(1, 2, 3), [resource.asyncId(), 1, 2, 3]);
     });

test('bind without thisArg uses the call-site this; with thisArg, thisArg',
     () => {
       const resource = new AsyncResource('This');
       function self() {
         return this;
       }
       const callSite = resource.bind(self);
       const receiver = {callSite};
       assert.equal(receiver.callSite(), receiver);
       assert.equal(callSite.call(5), 5);
       const fixed = {};
       const withThis = resource.bind(self, fixed);
       assert.equal(withThis.call(receiver), fixed);
       assert.equal(withThis(), fixed);
     });

test('AsyncResource.bind creates a resource triggered by the current id',
     () => {
       const bound = AsyncResource.bind(function(x) {
         return [executionAsyncId(), triggerAsyncId(), this, x];
       });
       const resource = bound.asyncResource;
       assert(resource instanceof AsyncResource);
       assert.equal(bound.length, 1);
       const receiver = {};
       assert.deepEqual(bound.call(receiver, 'x'),
                        [resource.asyncId(), executionAsyncId(), receiver, 'x']);
       const fixed = {};
       const withThis = AsyncResource.bind(function() {
         return this;
       }, 'Type', fixed);
       assert.equal(withThis.call(receiver), fixed);
     });

test('bound functions restore the ids when fn throws', () => {
  const outer = ids();
  const bound = AsyncResource.bind(() => {
    throw new Error('bound');
  });
  assert.throws(bound, /bound/);
  assert.deepEqual(ids(), outer);
});

test('bind and AsyncResource.bind with a non-function throw ' +
         'ERR_INVALID_ARG_TYPE',
     () => {
       const resource = new AsyncResource('X');
       for (const value of [undefined, null, 1, 'f', {}]) {
         for (const fn of [() => resource.bind(value),
                           () => AsyncResource.bind(value)]) {
           const err = assert.throws(fn, TypeError);
           assert.equal(err.code, 'ERR_INVALID_ARG_TYPE');
           assert.match(err.message,
                        /^The "fn" argument must be of type function\./);
         }
       }
     });

// --- the shell's timers --------------------------------------------------------

test('a timer callback runs with the timer\'s id, triggered by the id ' +
         'current when it was set',
     async () => {
       const setter = executionAsyncId();
       const before = new AsyncResource('Before').asyncId();
       let inside;
       const timer = setTimeout(() => {
         inside = [executionAsyncId(), triggerAsyncId(),
                   executionAsyncResource()];
       }, 0);
       const after = new AsyncResource('After').asyncId();
       await tick(5);
       assert(inside[0] > before && inside[0] < after,
              `timer id ${inside[0]} not between ${before} and ${after}`);
       assert.equal(inside[1], setter);
       assert.equal(inside[2], timer);
     });

test('a timer set inside runInAsyncScope is triggered by the resource',
     async () => {
       const resource = new AsyncResource('Scheduler');
       const inside = await resource.runInAsyncScope(() => new Promise(
           (resolve) => setTimeout(
               () => resolve([triggerAsyncId(), executionAsyncId()]), 0)));
       assert.equal(inside[0], resource.asyncId());
       assert(inside[1] > resource.asyncId());
     });

test('an immediate runs with its own id and the Immediate as resource',
     async () => {
       const setter = executionAsyncId();
       const before = new AsyncResource('Before').asyncId();
       let immediate;
       const inside = await new Promise((resolve) => {
         immediate = setImmediate(() => resolve([
           executionAsyncId(), triggerAsyncId(), executionAsyncResource(),
         ]));
       });
       assert(inside[0] > before);
       assert.equal(inside[1], setter);
       assert.equal(inside[2], immediate);
     });

test('every firing of an interval has the same id and resource', async () => {
  const firings = [];
  await new Promise((resolve) => {
    const interval = setInterval(() => {
      firings.push([executionAsyncId(), executionAsyncResource()]);
      if (firings.length === 3) {
        clearInterval(interval);
        resolve();
      }
    }, 1);
  });
  assert.equal(firings.length, 3);
  assert.equal(firings[1][0], firings[0][0]);
  assert.equal(firings[2][0], firings[0][0]);
  assert.equal(firings[1][1], firings[0][1]);
  assert.equal(firings[2][1], firings[0][1]);
});

test('two timers have different ids', async () => {
  const outer = executionAsyncId();
  const seen = [];
  setTimeout(() => seen.push(executionAsyncId()), 0);
  setTimeout(() => seen.push(executionAsyncId()), 0);
  await tick(5);
  assert.equal(seen.length, 2);
  assert.notEqual(seen[0], seen[1]);
  assert(seen[0] > outer && seen[1] > outer);
});

// With no hook enabled, promise reactions are not tracked: they run on the
// bottom of the execution stack, which the shell leaves at the top-level ids
// (Node gives 0 and 0 there).
test('a promise reaction with no hook enabled sees the top-level ids',
     async () => {
       await tick();
       assert.deepEqual(ids(), [1, 0]);
       const inReaction = await Promise.resolve().then(ids);
       assert.deepEqual(inReaction, [1, 0]);
     });

test('runInAsyncScope inside a timer callback nests on the timer', async () => {
  const resource = new AsyncResource('InTimer');
  const seen = await new Promise((resolve) => setTimeout(() => {
    const timerId = executionAsyncId();
    const timerResource = executionAsyncResource();
    const inside = resource.runInAsyncScope(() => executionAsyncId());
    resolve([inside === resource.asyncId(), executionAsyncId() === timerId,
             executionAsyncResource() === timerResource]);
  }, 0));
  assert.deepEqual(seen, [true, true, true]);
});

test('a throw inside runInAsyncScope in a timer leaves the timer\'s ids',
     async () => {
       const seen = await new Promise((resolve) => setTimeout(() => {
         const timerIds = ids();
         try {
           new AsyncResource('Throws').runInAsyncScope(() => {
             throw new Error('x');
           });
         } catch {
           // expected
         }
         resolve([timerIds, ids()]);
       }, 0));
       assert.deepEqual(seen[1], seen[0]);
     });
