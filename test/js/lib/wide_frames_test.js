// Frames with many keys: once a frame holds more than a few stores it gets
// an index (src/js/frames.js), and every operation must see exactly what it
// saw before. A seeded random program of nested run / enterWith / exit /
// disable / Variable#run / Snapshot / await over 40 keys is checked against
// a plain model (one Map per frame) at every step, and the shapes that
// exercise the index directly are spelled out first.

'use strict';

function makeStores(n, options) {
  const stores = [];
  for (let i = 0; i < n; i++) stores.push(new AsyncLocalStorage(options));
  return stores;
}

test('10,000 stores entered in one frame each see their own value', () => {
  const stores = makeStores(10000);
  const unset = new AsyncLocalStorage();
  const withDefault = new AsyncLocalStorage({defaultValue: 'd'});
  new AsyncLocalStorage().run('outer', () => {
    for (let i = 0; i < stores.length; i++) stores[i].enterWith(i);
    for (let i = 0; i < stores.length; i++) assert.equal(stores[i].getStore(), i);
    assert.equal(unset.getStore(), undefined);
    assert.equal(withDefault.getStore(), 'd');
  });
  for (const s of stores) assert.equal(s.getStore(), undefined);
});

test('run of a store held deep in a wide frame shadows it, then restores it', () => {
  const stores = makeStores(100);
  new AsyncLocalStorage().run(0, () => {
    for (let i = 0; i < stores.length; i++) stores[i].enterWith(`v${i}`);
    stores[3].run('inner', () => {
      assert.equal(stores[3].getStore(), 'inner');
      assert.equal(stores[4].getStore(), 'v4');
      assert.equal(stores[99].getStore(), 'v99');
      stores[3].exit(() => {
        assert.equal(stores[3].getStore(), undefined);
        assert.equal(stores[2].getStore(), 'v2');
      });
      assert.equal(stores[3].getStore(), 'inner');
    });
    assert.equal(stores[3].getStore(), 'v3');
  });
});

test('disable of a store held deep in a wide frame removes it', () => {
  const stores = makeStores(100);
  new AsyncLocalStorage().run(0, () => {
    for (let i = 0; i < stores.length; i++) stores[i].enterWith(i);
    stores[10].disable();
    assert.equal(stores[10].getStore(), undefined);
    // run re-enables it; the frame below no longer holds it.
    stores[11].run('x', () => {
      assert.equal(stores[10].getStore(), undefined);
      stores[10].enterWith('again');
      assert.equal(stores[10].getStore(), 'again');
      assert.equal(stores[11].getStore(), 'x');
    });
    assert.equal(stores[10].getStore(), undefined);
    assert.equal(stores[12].getStore(), 12);
  });
});

test('a disabled store in a wide frame is gone for snapshots too', () => {
  const stores = makeStores(50);
  const variable = new AsyncContext.Variable();
  new AsyncLocalStorage().run(0, () => {
    for (let i = 0; i < stores.length; i++) stores[i].enterWith(i);
    variable.run('var', () => {
      const before = new AsyncContext.Snapshot();
      stores[0].disable();
      stores[0].enterWith('new');
      const after = new AsyncContext.Snapshot();
      before.run(() => {
        assert.equal(stores[0].getStore(), 0);
        assert.equal(variable.get(), 'var');
      });
      after.run(() => assert.equal(stores[0].getStore(), 'new'));
    });
  });
});

test('a wide frame survives await, and its stores stay its own', async () => {
  const stores = makeStores(200);
  const results = await Promise.all([1, 2, 3].map((request) =>
    new AsyncLocalStorage().run(request, async () => {
      for (let i = 0; i < stores.length; i++) stores[i].enterWith(request * 1000 + i);
      await null;
      await new Promise((resolve) => setTimeout(resolve, 1));
      const seen = [];
      for (let i = 0; i < stores.length; i += 37) seen.push(stores[i].getStore());
      return seen;
    })));
  for (let r = 0; r < 3; r++) {
    assert.deepEqual(results[r], [0, 37, 74, 111, 148, 185].map((i) => (r + 1) * 1000 + i));
  }
  assert.equal(stores[0].getStore(), undefined);
});

// A small seeded generator (xorshift), so a failure names its seed.
function random(seed) {
  let x = seed | 0 || 1;
  return (n) => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return ((x >>> 0) % n);
  };
}

// The model: a frame is a Map from key to value; a disabled ALS, or one its
// frame does not hold, reads as its defaultValue (enabled again by run or
// enterWith, not by exit).
function randomProgram(seed) {
  const rnd = random(seed);
  const count = 40;
  const keys = [];
  for (let i = 0; i < count; i++) {
    if (i % 4 === 3) {
      keys.push({variable: new AsyncContext.Variable({defaultValue: `d${i}`})});
    } else {
      const fallback = i % 4 === 1 ? `a${i}` : undefined;
      keys.push({als: new AsyncLocalStorage({defaultValue: fallback}), fallback,
                 enabled: true});
    }
  }
  let model = new Map();
  let steps = 0;
  const check = () => {
    for (let i = 0; i < count; i++) {
      const k = keys[i];
      const expected = k.variable ?
          (model.has(i) ? model.get(i) : `d${i}`) :
          (k.enabled && model.has(i) ? model.get(i) : k.fallback);
      const actual = k.variable ? k.variable.get() : k.als.getStore();
      if (actual !== expected) {
        throw new Error(`seed ${seed}, step ${steps}: key ${i} is ${actual}, expected ${expected}`);
      }
    }
  };
  const snapshots = [];
  const step = (depth) => {
    while (steps < 400) {
      steps++;
      const i = rnd(count);
      const k = keys[i];
      const op = rnd(10);
      const value = `s${steps}`;
      if (op < 3 && depth < 30) {
        const saved = model;
        model = new Map(model);
        model.set(i, value);
        if (k.als) k.enabled = true;
        const run = () => { check(); step(depth + 1); check(); };
        if (k.variable) k.variable.run(value, run); else k.als.run(value, run);
        model = saved;
        check();
        if (rnd(3) === 0) return;
      } else if (op < 6 && k.als) {
        k.als.enterWith(value);
        k.enabled = true;
        model = new Map(model);
        model.set(i, value);
        check();
      } else if (op === 6 && k.als) {
        k.als.disable();
        k.enabled = false;
        model = new Map(model);
        model.delete(i);
        check();
      } else if (op === 7 && k.als) {
        const saved = model;
        model = new Map(model);
        model.set(i, undefined);  // exit: undefined inside, even with a default
        k.als.exit(() => { check(); step(depth + 1); check(); });
        model = saved;
        check();
      } else if (op === 8) {
        snapshots.push({snapshot: new AsyncContext.Snapshot(), model});
      } else if (snapshots.length > 0) {
        const {snapshot, model: then} = snapshots[rnd(snapshots.length)];
        const saved = model;
        model = then;
        // A disabled ALS reads as its default whatever the frame holds: the
        // snapshot's check uses the flags as they are now.
        snapshot.run(check);
        model = saved;
        check();
      } else {
        check();
      }
    }
  };
  new AsyncLocalStorage().run('root', () => step(0));
}

test('random programs over 40 keys agree with the model (200 seeds)', () => {
  for (let seed = 1; seed <= 200; seed++) randomProgram(seed);
});

test('withScope disposed out of order in a wide frame gives the default back', () => {
  const stores = makeStores(40);
  const withDefault = new AsyncLocalStorage({defaultValue: 'default'});
  new AsyncLocalStorage().run(0, () => {
    for (let i = 0; i < stores.length; i++) stores[i].enterWith(i);
    const scope = withDefault.withScope('scoped');
    for (let i = 0; i < stores.length; i++) stores[i].enterWith(`again${i}`);
    assert.equal(withDefault.getStore(), 'scoped');
    scope.dispose();  // not current any more: only withDefault goes back
    assert.equal(withDefault.getStore(), 'default');
    assert.equal(stores[7].getStore(), 'again7');
    const snapshot = new AsyncContext.Snapshot();
    withDefault.enterWith('later');
    snapshot.run(() => assert.equal(withDefault.getStore(), 'default'));
  });
});
