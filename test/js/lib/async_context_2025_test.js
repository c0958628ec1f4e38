// The parts of the 2025-26 AsyncContext proposal that an embedding can
// give: FinalizationRegistry keeps its builtin shape while its cleanups run
// in the construction context (the GC half is
// finalization_registry_gc_expect.js), and generators, which need V8's
// help, follow V8 (docs/semantics.md, "Generators"). Module evaluation is
// test/js/shell/modules_empty_context_expect.js.

'use strict';

test('FinalizationRegistry keeps the builtin\'s name, length and toString',
     () => {
       const F = FinalizationRegistry;
       assert.equal(F.name, 'FinalizationRegistry');
       assert.equal(F.length, 1);
       assert.equal(Function.prototype.toString.call(F),
                    'function FinalizationRegistry() { [native code] }');
       assert.equal(Object.getPrototypeOf(F), Function.prototype);
       const name = Object.getOwnPropertyDescriptor(F, 'name');
       assert.deepEqual([name.writable, name.enumerable, name.configurable],
                        [false, false, true]);
       const length = Object.getOwnPropertyDescriptor(F, 'length');
       assert.deepEqual(
           [length.value, length.writable, length.enumerable,
            length.configurable],
           [1, false, false, true]);
     });

test('FinalizationRegistry has the builtin\'s own properties', () => {
  const names = Object.getOwnPropertyNames(FinalizationRegistry).sort();
  // Every API function of V8 10.2 and 13.6 has own `arguments` and `caller`
  // (null, non-configurable); V8 14.6's have not (docs/semantics.md).
  const expected = typeof V8_VERSION !== 'undefined' && V8_VERSION[0] < 14 ?
      ['arguments', 'caller', 'length', 'name', 'prototype'] :
      ['length', 'name', 'prototype'];
  assert.deepEqual(names, expected);
});

test('FinalizationRegistry keeps the global and prototype properties', () => {
  const F = FinalizationRegistry;
  const global = Object.getOwnPropertyDescriptor(globalThis,
                                                 'FinalizationRegistry');
  assert.deepEqual(
      [global.value === F, global.writable, global.enumerable,
       global.configurable],
      [true, true, false, true]);
  const proto = Object.getOwnPropertyDescriptor(F, 'prototype');
  assert.deepEqual([proto.writable, proto.enumerable, proto.configurable],
                   [false, false, false]);
  const ctor = Object.getOwnPropertyDescriptor(F.prototype, 'constructor');
  assert.deepEqual(
      [ctor.value === F, ctor.writable, ctor.enumerable, ctor.configurable],
      [true, true, false, true]);
  assert.deepEqual(Object.getOwnPropertyNames(F.prototype).sort(),
                   ['constructor', 'register', 'unregister']);
  assert.equal(F.prototype[Symbol.toStringTag], 'FinalizationRegistry');
});

test('FinalizationRegistry instances, instanceof, subclasses and newTarget',
     () => {
       const F = FinalizationRegistry;
       const registry = new F(() => {});
       assert(registry instanceof F);
       assert.equal(Object.getPrototypeOf(registry), F.prototype);
       assert.equal(Object.prototype.toString.call(registry),
                    '[object FinalizationRegistry]');
       assert.deepEqual(Reflect.ownKeys(registry), []);
       const token = {};
       registry.register({}, 'held', token);
       assert.equal(registry.unregister(token), true);
       class Sub extends F {
         constructor(cleanup) {
           super(cleanup);
           this.own = 1;
         }
         method() {
           return 2;
         }
       }
       const sub = new Sub(() => {});
       assert(sub instanceof Sub && sub instanceof F);
       assert.equal(Object.getPrototypeOf(Sub), F);
       assert.deepEqual([sub.own, sub.method()], [1, 2]);
       assert.equal(sub.unregister({}), false);
       function Target() {}
       Target.prototype = Object.create(F.prototype);
       const made = Reflect.construct(F, [() => {}], Target);
       assert.equal(Object.getPrototypeOf(made), Target.prototype);
       // The brand is the builtin's: its methods refuse other objects.
       assert.throws(() => F.prototype.register.call({}, {}), TypeError);
     });

test('FinalizationRegistry throws the builtin\'s errors', () => {
  const F = FinalizationRegistry;
  assert.throws(() => F(() => {}),
                (err) => err instanceof TypeError &&
                    err.message === 'Constructor FinalizationRegistry ' +
                        'requires \'new\'' &&
                    !('code' in err));
  for (const bad of [undefined, null, 1, 'f', {}]) {
    assert.throws(() => new F(bad),
                  (err) => err instanceof TypeError &&
                      err.message ===
                          'FinalizationRegistry: cleanup must be callable');
  }
  const err = (() => {
    try {
      new F();
    } catch (e) {
      return e;
    }
  })();
  assert(!String(err.stack).includes('asyncctx:internal'),
         'no frame of the library in the stack');
});

test('a generator resumes in the frame of the caller of next() (V8, Node)',
     () => {
       const variable = new AsyncContext.Variable();
       const als = new AsyncLocalStorage();
       function* gen() {
         const seen = [];
         seen.push([variable.get(), als.getStore()]);
         yield;
         seen.push([variable.get(), als.getStore()]);
         return seen;
       }
       const it = variable.run('created', () => als.run('created', gen));
       variable.run('first', () => als.run('first', () => it.next()));
       const {value} = variable.run('second', () => it.next());
       assert.deepEqual(value, [['first', 'first'], ['second', undefined]]);
       assert.equal(variable.get(), undefined);
     });

test('the documented pattern runs each step in the creation context', () => {
  const variable = new AsyncContext.Variable();
  function inCreationContext(iterator) {
    const snapshot = new AsyncContext.Snapshot();
    return {
      next: (v) => snapshot.run(() => iterator.next(v)),
      return: (v) => snapshot.run(() => iterator.return(v)),
      throw: (e) => snapshot.run(() => iterator.throw(e)),
      [Symbol.iterator]() {
        return this;
      },
    };
  }
  function* gen() {
    yield variable.get();
    yield variable.get();
  }
  const it = variable.run('created', () => inCreationContext(gen()));
  const seen = variable.run('consumer', () => [...it]);
  assert.deepEqual(seen, ['created', 'created']);
});
