// Promise species and capabilities at the root frame (issue 23, item 1, the
// case promise_species_expect.js leaves out). The victim's reactions are
// queued at the root frame: their then() runs outside every store (a timer
// of the root, a thenable job of a root promise), so V8 captures the root
// and, on V8 10.2, enters nothing for them, like a thenable job. The
// attacker's Symbol.species constructor hands out, as their capability, a
// promise made inside the victim's earlier request (kept from then, made in
// a snapshot of it, or a subclass calling super() inside the snapshot,
// sometimes already fulfilled or rejected). Each reaction must run at the
// root, as in Node.js 24: on V8 10.2 the repair used to enter the
// capability's frame, and the reaction saw the request's secret. The
// victim's own thenables, awaited inside its request, must still see it.
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const OriginalPromise = Promise;
const speciesDescriptor =
    Object.getOwnPropertyDescriptor(OriginalPromise, Symbol.species);
const als = new AsyncLocalStorage();
const secret = `${SECRET_MARK}-root`;
const wrong = [];
let expected = 0;
let ran = 0;

// --- the attacker --------------------------------------------------------
// Promises made inside the victim's request, with their resolvers.
const stash = [];
let snapshot;
let calls = 0;
function keepOne() {
  let resolve;
  let reject;
  const promise = new OriginalPromise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  p.push(stash, {promise, resolve, reject});
}
class Subclass extends OriginalPromise {
  constructor(executor) {
    let self;
    snapshot(() => {
      self = super(executor);
    });
    return self;
  }
}
function stale(executor) {
  calls++;
  if (snapshot === undefined) {
    // The first capability asked for inside the victim's request: keep the
    // request, and promises made in it.
    if (als.getStore() !== undefined) {
      snapshot = AsyncLocalStorage.snapshot();
      for (let i = 0; i < 12; i++) keepOne();
    }
    return new OriginalPromise(executor);
  }
  const kind = calls % 4;
  if (kind === 0 && stash.length > 0) {
    // A promise of the request, its own resolving functions handed over;
    // some are fulfilled already (the resolve hook saw them).
    const old = stash.pop();
    if (calls % 3 === 0) old.resolve('settled');
    executor(old.resolve, old.reject);
    return old.promise;
  }
  if (kind === 1) {
    let made;
    snapshot(() => {
      made = new OriginalPromise(executor);
    });
    return made;
  }
  if (kind === 2) return new Subclass(executor);
  return new OriginalPromise(executor);
}
Object.defineProperty(OriginalPromise, Symbol.species, {
  configurable: true,
  get() { return stale; },
});

// --- the victim ------------------------------------------------------------
function expectStore(where, store) {
  expected++;
  return () => {
    ran++;
    if (als.getStore() !== store) p.push(wrong, where);
  };
}

// Its request: a then() (the attacker's chance to keep it), and its own
// thenables, which must keep the request's store.
als.run(secret, () => {
  OriginalPromise.resolve().then(expectStore('request then', secret));
  const thenable = expectStore('request thenable', secret);
  (async () => {
    await {then(resolve) { resolve(); }};
    thenable();
  })();
  const executor = expectStore('request resolve(thenable)', secret);
  new OriginalPromise((resolve) => {
    resolve({then(res) {
      executor();
      res();
    }});
  });
});

// Later, at the root: reactions of every kind, from a timer of the root and
// from a thenable job of a root promise.
function reactions(where) {
  for (let i = 0; i < 8; i++) {
    OriginalPromise.resolve(i).then(expectStore(`${where} then ${i}`));
    OriginalPromise.reject(new Error('x'))
        .catch(expectStore(`${where} catch ${i}`));
    OriginalPromise.resolve(i).finally(expectStore(`${where} finally ${i}`));
  }
}
p.setTimeout(() => {
  reactions('timer');
  OriginalPromise.resolve({then(resolve) {
    reactions('thenable job');
    resolve();
  }});
}, 5);

p.setTimeout(() => {
  Object.defineProperty(OriginalPromise, Symbol.species, speciesDescriptor);
  if (snapshot === undefined) p.push(wrong, 'the attack never started');
  if (ran !== expected) p.push(wrong, `ran ${ran}/${expected}`);
  p.log(wrong.length === 0 ? 'victim ok' : `FAIL: ${wrong.join(', ')}`);
}, 50);
