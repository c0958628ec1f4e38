// Isolation between requests, in the style of a multi-tenant server: 1,000
// interleaved "requests", each an als.run with its own id, step through 2 to
// 20 awaits on timers, immediates, thenables, microtasks, promise reactions,
// Promise.all, AsyncResource and AsyncContext.Snapshot in a random order.
// Every step, and every callback a step schedules, must see its own request's
// id and nothing else. A seeded PRNG keeps each run the same; the seed is in
// every failure message.

'use strict';

const SEED = 0x5eed;
const REQUESTS = 1000;

// mulberry32: small, seedable, good enough to pick steps.
function prng(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeServer(seed, options = {}) {
  const random = prng(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = (items) => items[Math.floor(random() * items.length)];

  const als = new AsyncLocalStorage();
  const variable = new AsyncContext.Variable({name: 'request'});
  const stats = {checks: 0, rootChecks: 0, steps: 0, completed: 0,
                 crossTalk: []};

  function check(id, where) {
    stats.checks++;
    const store = als.getStore();
    const value = variable.get();
    const ok = store === id &&
        value === (options.enterWithStyle ? undefined : id);
    if (!ok) {
      if (stats.crossTalk.length < 10) {
        stats.crossTalk.push(
            `request ${id} at ${where}: store ${JSON.stringify(store)}, ` +
            `variable ${JSON.stringify(value)} (seed ${seed})`);
      } else {
        stats.crossTalk.length++;
      }
    }
  }

  const tick = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // One step: returns a promise; `id` is who must be seen everywhere.
  const steps = {
    timer(id, where) {
      const ms = int(0, 3);
      return new Promise((resolve) => setTimeout(() => {
        check(id, where + ' timer callback');
        resolve();
      }, ms));
    },
    immediate(id, where) {
      return new Promise((resolve) => setImmediate(() => {
        check(id, where + ' immediate callback');
        resolve();
      }));
    },
    microtask(id, where) {
      return new Promise((resolve) => queueMicrotask(() => {
        check(id, where + ' microtask');
        resolve();
      }));
    },
    thenable(id, where) {
      const how = pick(['sync', 'timer', 'microtask', 'nested']);
      return {
        then(resolve) {
          check(id, where + ' then()');
          if (how === 'sync') {
            resolve();
          } else if (how === 'timer') {
            setTimeout(() => {
              check(id, where + ' then() timer');
              resolve();
            }, 0);
          } else if (how === 'microtask') {
            queueMicrotask(() => {
              check(id, where + ' then() microtask');
              resolve();
            });
          } else {
            resolve({
              then(inner) {
                check(id, where + ' nested then()');
                inner();
              },
            });
          }
        },
      };
    },
    reaction(id, where) {
      return Promise.resolve().then(() => check(id, where + ' reaction'));
    },
    rejection(id, where) {
      return Promise.reject(new Error('step')).catch(() => {
        check(id, where + ' catch');
      });
    },
    plain(id, where) {
      return pick([null, 1, Promise.resolve()]);
    },
    all(id, where) {
      return Promise.all([
        steps.timer(id, where + ' all[0]'),
        steps.thenable(id, where + ' all[1]'),
        steps.microtask(id, where + ' all[2]'),
      ]);
    },
    resource(id, where) {
      const resource = new AsyncResource('RequestStep');
      return new Promise((resolve) => setTimeout(() => {
        // The timer was also scheduled inside the request.
        resource.runInAsyncScope(() => check(id, where + ' resource'));
        resolve();
      }, int(0, 2)));
    },
    snapshot(id, where) {
      const snapshot = new AsyncContext.Snapshot();
      return tick(int(0, 2)).then(() => {
        snapshot.run(() => check(id, where + ' snapshot'));
      });
    },
    asyncFunction(id, where) {
      return (async () => {
        check(id, where + ' async function');
        await null;
        check(id, where + ' async function after await');
      })();
    },
  };
  const kinds = Object.keys(steps);

  async function handle(id) {
    check(id, 'start');
    const count = int(2, 20);
    for (let i = 0; i < count; i++) {
      const kind = pick(kinds);
      const where = `step ${i} (${kind})`;
      await steps[kind](id, where);
      stats.steps++;
      check(id, where + ' after await');
    }
    stats.completed++;
  }

  // A request handler in the style of Node middleware that cannot wrap the
  // rest of the request in run(): called at the root frame, it awaits (say,
  // the request body), then enterWith(id) for the rest of the request.
  async function handleWithEnterWith(id) {
    checkRoot(`request ${id} before its first await`);
    await pick([null, tick(int(0, 2)), {then: (resolve) => resolve()}]);
    checkRoot(`request ${id} after its first await, before enterWith`);
    als.enterWith(id);
    await handle(id);
  }

  // Code that runs at the root frame must see no request at all.
  function checkRoot(where) {
    stats.rootChecks++;
    const store = als.getStore();
    const value = variable.get();
    if (store !== undefined || value !== undefined) {
      if (stats.crossTalk.length < 10) {
        stats.crossTalk.push(
            `${where}: store ${JSON.stringify(store)}, variable ` +
            `${JSON.stringify(value)} (seed ${seed})`);
      } else {
        stats.crossTalk.length++;
      }
    }
  }

  // Requests arrive in groups of 1 to 8 (several parsed from one read), each
  // group in its own timer callback at a random time.
  function serve() {
    const finished = [];
    let n = 0;
    while (n < REQUESTS) {
      const group = [];
      for (let size = int(1, 8); size > 0 && n < REQUESTS; size--) {
        group.push('req-' + n++);
      }
      finished.push(new Promise((resolve, reject) => {
        setTimeout(() => {
          Promise.all(group.map((id) => options.enterWithStyle ?
              handleWithEnterWith(id) :
              als.run(id, () => variable.run(id, () => handle(id)))))
              .then(resolve, reject);
        }, int(0, 10));
      }));
    }
    return Promise.all(finished);
  }

  return {als, variable, stats, serve, checkRoot};
}

function assertNoCrossTalk(stats) {
  if (stats.crossTalk.length > 0) {
    assert.fail(`${stats.crossTalk.length} cross-talk observations, ` +
                `first ones:\n  ` + stats.crossTalk.slice(0, 10).join('\n  '));
  }
}

test('1,000 interleaved requests each see only their own id', async () => {
  const server = makeServer(SEED);
  await server.serve();
  const {stats} = server;
  assertNoCrossTalk(stats);
  assert.equal(stats.completed, REQUESTS);
  assert(stats.steps >= 2 * REQUESTS, `only ${stats.steps} steps`);
  console.log(`# ${REQUESTS} requests, ${stats.steps} steps, ` +
              `${stats.checks} checks, 0 cross-talk`);
}, {timeout: 60000});

test('a second seed, with a different interleaving', async () => {
  const server = makeServer(SEED + 1);
  await server.serve();
  assertNoCrossTalk(server.stats);
  assert.equal(server.stats.completed, REQUESTS);
}, {timeout: 60000});

// Requests that enter their store with enterWith after an await instead of
// run(): their handlers are called at the root frame, so each first await
// resumes in a job whose captured frame is the root. The store of one
// request must not show up there, in another request, or in the server's own
// root-frame code (a background loop, reactions attached at the root).
// V8 10.2 neither sets nor resets the frame around a job whose captured frame
// is the root; the library has to enter the root frame itself.
test('requests that use enterWith instead of run see only their own id',
     async () => {
       const server = makeServer(SEED + 2, {enterWithStyle: true});
       const {stats, checkRoot} = server;
       let stop = false;
       const background = (async () => {
         while (!stop) {
           await null;
           checkRoot('background job after await');
           await new Promise((resolve) => setTimeout(resolve, 0));
           checkRoot('background job after timer');
         }
       })();
       const reactions = [];
       const ticker = setInterval(() => {
         for (let i = 0; i < 5; i++) {
           reactions.push(Promise.resolve().then(
               () => checkRoot('root reaction')));
         }
       }, 1);
       await server.serve();
       clearInterval(ticker);
       stop = true;
       await background;
       await Promise.all(reactions);
       assertNoCrossTalk(stats);
       assert.equal(stats.completed, REQUESTS);
       assert(stats.rootChecks > 2 * REQUESTS,
              `only ${stats.rootChecks} root checks`);
       console.log(`# ${REQUESTS} enterWith requests, ${stats.steps} steps, ` +
                   `${stats.checks + stats.rootChecks} checks, 0 cross-talk`);
     }, {timeout: 60000});
