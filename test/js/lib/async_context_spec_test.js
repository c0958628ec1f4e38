// TC39 AsyncContext, step by step against the proposal's spec text
// (tc39/proposal-async-context, spec.html). Each case names the step.

'use strict';

const {Variable, Snapshot} = AsyncContext;

// AsyncContext.Variable(options), step 4: options that is not an Object is
// ignored.
test('Variable: a non-object options is ignored', () => {
  for (const options of [5, 'name', true, null, Symbol('s'), 1n]) {
    const v = new Variable(options);
    assert.equal(v.name, '');
    assert.equal(v.get(), undefined);
  }
});

// Step 4.a-b: HasProperty(options, "name"), then one Get, then ToString.
test('Variable: name uses HasProperty, one Get and ToString', () => {
  const log = [];
  const options = new Proxy({name: 7, defaultValue: 'd'}, {
    has(t, key) {
      log.push(`has ${String(key)}`);
      return Reflect.has(t, key);
    },
    get(t, key) {
      log.push(`get ${String(key)}`);
      return Reflect.get(t, key);
    },
  });
  const v = new Variable(options);
  assert.equal(v.name, '7');
  assert.equal(v.get(), 'd');
  assert.deepEqual(log, ['has name', 'get name', 'get defaultValue']);
  assert.equal(new Variable({name: undefined}).name, 'undefined');
  assert.equal(new Variable({}).name, '');
  assert.equal(new Variable({name: {toString() { return 'x'; }}}).name, 'x');
  assert.throws(() => new Variable({name: Symbol('s')}), TypeError);
  const inherited = Object.create({name: 'proto'});
  assert.equal(new Variable(inherited).name, 'proto');
});

// Step 5: OrdinaryCreateFromConstructor(NewTarget, ...): a NewTarget whose
// prototype is not an object gives the intrinsic prototype.
test('Variable and Snapshot: NewTarget prototype fallback', () => {
  function NewTarget() {}
  NewTarget.prototype = 5;
  const v = Reflect.construct(Variable, [], NewTarget);
  assert.equal(Object.getPrototypeOf(v), Variable.prototype);
  const s = Reflect.construct(Snapshot, [], NewTarget);
  assert.equal(Object.getPrototypeOf(s), Snapshot.prototype);
  class Sub extends Variable {}
  assert.equal(Object.getPrototypeOf(new Sub()), Sub.prototype);
  assert.throws(() => Variable(), TypeError);
  assert.throws(() => Snapshot(), TypeError);
});

// RequireInternalSlot in every method and getter.
test('brand checks: methods and getters throw TypeError on other receivers',
     () => {
       const v = new Variable();
       const s = new Snapshot();
       const nameGetter =
           Object.getOwnPropertyDescriptor(Variable.prototype, 'name').get;
       for (const receiver of [{}, s, null, undefined, 5, Variable.prototype]) {
         assert.throws(() => nameGetter.call(receiver), TypeError);
         assert.throws(() => Variable.prototype.get.call(receiver), TypeError);
         assert.throws(() => Variable.prototype.run.call(receiver, 1, () => {}),
                       TypeError);
       }
       for (const receiver of [{}, v, null, 5, Snapshot.prototype]) {
         assert.throws(() => Snapshot.prototype.run.call(receiver, () => {}),
                       TypeError);
       }
     });

// The AsyncContext namespace object.
test('AsyncContext: an ordinary object with the spec\'s property attributes',
     () => {
       assert.equal(Object.getPrototypeOf(AsyncContext), Object.prototype);
       for (const key of ['Variable', 'Snapshot']) {
         const d = Object.getOwnPropertyDescriptor(AsyncContext, key);
         assert.deepEqual([d.writable, d.enumerable, d.configurable],
                          [true, false, true]);
       }
       const tag = Object.getOwnPropertyDescriptor(AsyncContext,
                                                   Symbol.toStringTag);
       assert.deepEqual([tag.value, tag.writable, tag.enumerable],
                        ['AsyncContext', false, false]);
       assert.equal(String(AsyncContext), '[object AsyncContext]');
     });

// Snapshot.wrap: CopyNameAndLength(F, Target, "wrapped").
test('Snapshot.wrap: CopyNameAndLength', () => {
  function named(a, b, c) {}
  const w = Snapshot.wrap(named);
  assert.equal(w.name, 'wrapped named');
  assert.equal(w.length, 3);
  const nameDesc = Object.getOwnPropertyDescriptor(w, 'name');
  assert.deepEqual([nameDesc.writable, nameDesc.enumerable,
                    nameDesc.configurable], [false, false, true]);
  const lengthDesc = Object.getOwnPropertyDescriptor(w, 'length');
  assert.deepEqual([lengthDesc.writable, lengthDesc.enumerable,
                    lengthDesc.configurable], [false, false, true]);
  const odd = (length, name) => {
    const f = function() {};
    Object.defineProperty(f, 'length', {value: length});
    Object.defineProperty(f, 'name', {value: name});
    return Snapshot.wrap(f);
  };
  assert.equal(odd(Infinity, 'x').length, Infinity);
  assert.equal(odd(-Infinity, 'x').length, 0);
  assert.equal(odd(-5, 'x').length, 0);
  assert.equal(odd(2.7, 'x').length, 2);
  assert.equal(odd(NaN, 'x').length, 0);
  assert.equal(odd('3', 'x').length, 0);
  assert.equal(odd(1, 5).name, 'wrapped ');
  assert.equal(odd(1, Symbol('s')).name, 'wrapped ');
  const noLength = function() {};
  delete noLength.length;
  Object.setPrototypeOf(noLength, {length: 9});
  assert.equal(Snapshot.wrap(noLength).length, 0);
  const throwing = function() {};
  Object.defineProperty(throwing, 'name', {get() { throw new Error('name'); }});
  assert.throws(() => Snapshot.wrap(throwing), /name/);
});

test('Snapshot.wrap: the wrapped function is not a constructor and passes ' +
     'this and arguments', () => {
  const v = new Variable();
  const w = v.run('in', () => Snapshot.wrap(function(a, b) {
    return [this, a, b, v.get()];
  }));
  assert.throws(() => new w(), TypeError);
  assert.equal(w.prototype, undefined);
  const self = {};
  assert.deepEqual(w.call(self, 1, 2), [self, 1, 2, 'in']);
});

test('Variable.prototype.run calls fn with this undefined', () => {
  const v = new Variable();
  assert.equal(v.run(1, function() {
    return this;
  }), undefined);
});
