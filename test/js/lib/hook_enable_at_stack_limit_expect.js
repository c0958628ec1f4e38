// enable() and disable() of a hook at every depth near the stack limit:
// each either takes effect or throws the caller's RangeError and changes
// nothing (the hook lists, the counts and V8's promise hooks are put back
// together). Hooks of several shapes are probed (no callbacks, one kind,
// all five), alone and next to a witness hook enabled all along. After
// each call, at the top of the stack, the probed hook gets every kind of
// event exactly when its last enable() or disable() said it is enabled,
// the witness gets every event, and a queueMicrotask callback sees the
// top level's id (1) exactly when no hook is enabled. A rollback that
// restored the wrong list (or none), or kept the counts of a failed call,
// shows as an event missed or delivered, or as a microtask id.
// expect-stdout: ^consistent at every depth: true$
// expect-stdout: ^some calls overflowed: true$
'use strict';

const kinds = ['init', 'before', 'after', 'destroy', 'promiseResolve'];
function counter(only) {
  const counts = {};
  const callbacks = {};
  for (const kind of kinds) {
    counts[kind] = 0;
    if (only === undefined || only.includes(kind)) {
      callbacks[kind] = () => { counts[kind]++; };
    }
  }
  return {counts, callbacks};
}

// One of each event: init, before, after and destroy of an AsyncResource,
// promiseResolve (and init) of a promise.
function events(counters) {
  for (const c of counters) for (const k of kinds) c.counts[k] = 0;
  const resource = new AsyncResource('PROBE');
  resource.runInAsyncScope(() => {});
  resource.emitDestroy();
  Promise.resolve();
}

let bad = 0;
let overflowed = 0;
let attempts = 0;
function fail(message) {
  if (bad++ < 10) console.log(message);
}

async function check(probed, shape, witness, enabled, where) {
  events(witness ? [probed, witness] : [probed]);
  for (const kind of kinds) {
    // destroy is emitted later (batched).
    if (kind === 'destroy') continue;
    if (witness && witness.counts[kind] === 0) {
      fail(`${where}: the witness missed ${kind}`);
    }
    const want = enabled && (shape === undefined || shape.includes(kind));
    if ((probed.counts[kind] > 0) !== want) {
      fail(`${where}: probed ${kind} ${probed.counts[kind]}, want ${want}`);
    }
  }
  let id;
  queueMicrotask(() => { id = asyncHooks.executionAsyncId(); });
  await null;
  await null;
  if ((id === 1) !== !(enabled || witness)) {
    fail(`${where}: a queued callback's id ${id}, enabled ${enabled}`);
  }
}

function recurse(n, fn) {
  if (n === 0) return fn();
  return recurse(n - 1, fn);
}

// The deepest n for which reaches(n) holds (a binary search: it holds for
// every smaller n, give or take the changes of frame size as recurse gets
// optimized).
function deepest(reaches) {
  let top = 1;
  while (reaches(top)) top *= 2;
  let low = top >> 1;
  while (low + 1 < top) {
    const mid = (low + top) >> 1;
    if (reaches(mid)) low = mid;
    else top = mid;
  }
  return low;
}

async function probe(shape, witness) {
  const probed = counter(shape);
  const hook = asyncHooks.createHook(probed.callbacks);
  const name = `${shape ? shape.join('+') || 'none' : 'all'}` +
      `${witness ? ' with a witness' : ''}`;
  let enabled = false;
  for (const action of ['enable', 'disable']) {
    // One closure for the search and the calls, so that recurse keeps its
    // frame size from one to the other.
    let threw;
    const call = () => {
      try {
        hook[action]();
        threw = false;
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        threw = true;
      }
    };
    // Sets `threw` (undefined: overflowed before reaching the call).
    const attempt = (n) => {
      threw = undefined;
      try {
        recurse(n, call);
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
      }
    };
    const setState = (on) => {
      if (on) hook.enable();
      else hook.disable();
      enabled = on;
    };
    const initial = action === 'disable';
    // From 16 frames deeper than the deepest depth found to reach the call
    // (frame sizes may still change, so it is only a start), one frame at
    // a time, to 120 frames above the first depth at which it was reached.
    const start = deepest((n) => {
      setState(initial);
      attempt(n);
      return threw !== undefined;
    });
    let reachedAt = -1;
    for (let n = start + 16; n > 0; n--) {
      if (reachedAt >= 0 && n < reachedAt - 120) break;
      setState(initial);
      attempt(n);
      if (threw === undefined) continue;
      if (reachedAt < 0) reachedAt = n;
      attempts++;
      if (threw) overflowed++;
      else enabled = action === 'enable';
      // Only near the first reach (where the calls overflow): the rest
      // is checked every 50 frames.
      if (threw || n > reachedAt - 20 || n % 50 === 0) {
        await check(probed, shape, witness, enabled, `${name}: ${action} at ${n}`);
      }
    }
  }
  hook.disable();
}

(async () => {
  // Three rounds: as recurse and the layer get optimized, each call needs
  // less stack, and a different call is the one that overflows.
  const shapes = [[], ['init'], undefined];
  const witness = counter();
  for (let round = 0; round < 3; round++) {
    for (const shape of shapes) await probe(shape, undefined);
    const witnessHook = asyncHooks.createHook(witness.callbacks).enable();
    for (const shape of shapes) await probe(shape, witness);
    witnessHook.disable();
  }
  console.log(`consistent at every depth: ${bad === 0 && attempts > 0}`);
  console.log(`some calls overflowed: ${overflowed > 0}`);
})();
