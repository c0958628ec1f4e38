// Promise species, subclasses and capabilities (issue 23, item 1). The
// attacker redefines Promise[Symbol.species] (and the constructor the
// victim's promises inherit) with constructors that hand out, as the
// capability of the victim's then(), a promise made earlier inside the
// victim's previous request, or a fresh promise made inside a snapshot of
// that request. A reaction's frame is the frame of its then() call (V8
// captured it), never the frame of an object user code supplies: on V8 10.2
// the repair used to enter the capability promise's frame, and the
// victim's second request saw the first one's secret. Every callback of
// the victim must run, and see only its own values, on every V8 (as in
// Node.js 24).
// expect-stdout: ^victim ok$
'use strict';
load('test/js/hostile/fixtures/tenants.js');
const p = capturePristine();
const observed = [];
const OriginalPromise = Promise;
const speciesDescriptor =
    Object.getOwnPropertyDescriptor(OriginalPromise, Symbol.species);
// Capabilities made inside the victim's requests, used in later ones.
const stash = [];
let snapshot;
let calls = 0;
function stale(executor) {
  calls++;
  // The first call inside a victim request keeps that request for later.
  if (snapshot === undefined && calls > 2) {
    snapshot = AsyncLocalStorage.snapshot();
  }
  if (calls % 3 === 0 && stash.length > 0) {
    // A promise created earlier, inside another request: its own resolving
    // functions become the capability's.
    const old = stash.pop();
    executor(old.resolve, old.reject);
    return old.promise;
  }
  // Keep some promises of this request for later.
  for (let i = 0; i < 2; i++) {
    let resolve;
    let reject;
    const promise = new OriginalPromise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    p.push(stash, {promise, resolve, reject});
  }
  if (snapshot !== undefined && calls % 3 === 1) {
    // A fresh promise, made inside the kept request.
    let made;
    snapshot(() => {
      made = new OriginalPromise(executor);
    });
    return made;
  }
  return new OriginalPromise(executor);
}
// A subclass whose constructor makes its promise inside the kept request.
class Subclass extends OriginalPromise {
  constructor(executor) {
    if (snapshot !== undefined) {
      let self;
      snapshot(() => {
        self = super(executor);
      });
      return self;
    }
    super(executor);
  }
}
let which = 0;
Object.defineProperty(OriginalPromise, Symbol.species, {
  configurable: true,
  get() {
    which++;
    return which % 2 === 0 ? stale : Subclass;
  },
});
runTenants(p, observed, () => {
  // The attacker's own request: its promises, then(), await.
  const own = new AsyncLocalStorage();
  own.run('attacker', async () => {
    await OriginalPromise.resolve().then(() => {});
    p.push(observed, own.getStore());
  });
});
// Put back at the end (the checks are done by then).
p.setTimeout(() => {
  Object.defineProperty(OriginalPromise, Symbol.species, speciesDescriptor);
}, 2500);
