// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The context machinery shared by AsyncContext and AsyncLocalStorage (one
// implementation of run, get and snapshot), and TC39's AsyncContext
// (tc39/proposal-async-context, spec.html).

'use strict';

const {
  MathMax,
  MathTrunc,
  ObjectSetPrototypeOf,
  ReflectApply,
  ReflectHas,
  SymbolToStringTag,
  defineValue,
  hasOwn,
} = primordials;
const { constants, contextFields } = binding;
const { kRepairActive } = constants;
const {
  ensureKeyId,
  getFrame,
  kLayer,
  kMissing,
  linkTail,
  newNode,
  restoreFrame,
  setFrame,
  slotFrame,
  swapFrame,
  keyBit,
  keyIdOf,
  tableGet,
  tableLookup,
} = require('internal/frames');
const { invalidArgType, runtimeDestroyed } = require('internal/errors');
const { activateRepairOnce } = require('internal/promise_hooks');

// The one body of AsyncLocalStorage#run and AsyncContext.Variable#run: a
// method whose `this` is the key. Called as run(value, fn, ...args), it
// calls fn with `key` mapped to `value`, then restores the exact previous
// frame. `prepare(key, fn)` is the class's own part, first (brand check,
// argument validation); fn is called with `thisArg` as its `this`.
//
// The method itself is the body, with the rest parameter and the call of fn
// in one function: TurboFan then inlines it and fn into the caller's loop
// and passes the arguments straight through. (A wrapper handing its rest
// array to a shared function costs about 150 instructions more per run: the
// callback is no longer inlined.) Spreading the arguments instead would
// consult Array.prototype[Symbol.iterator], which user code controls.
//
// This is the hot path of every run: two native calls, not three. The new
// node is made first and swapped in, and its tail (the previous frame
// without `key`: linkTail, as in frameWith) is filled in right after the
// swap: no other JavaScript runs in between, so nothing ever sees the node
// unfinished. The tail is filled inside the `try`, so that a stack overflow
// there still restores the previous frame.
function makeRunMethod(prepare, thisArg) {
  // A method: not a constructor, as class methods are.
  const {run} = {
    run(value, fn, ...args) {
      const key = this;
      prepare(key, fn);
      const frame = newNode(key, value, undefined);
      if (contextFields[kRepairActive] !== 1) activateRepairOnce();
      const previous = swapFrame(frame);
      try {
        linkTail(frame, previous);
        return ReflectApply(fn, thisArg, args);
      } finally {
        try { setFrame(previous); } catch { restoreFrame(previous); }
      }
    },
  };
  return run;
}

// Calls fn in `frame`, then restores the exact previous frame. Like run,
// it refuses to start once the runtime is destroyed (the per-context fields
// are detached then).
function runInFrame(frame, fn, thisArg, args) {
  if (contextFields[kRepairActive] === undefined) throw runtimeDestroyed();
  const previous = swapFrame(slotFrame(frame));
  try {
    return ReflectApply(fn, thisArg, args);
  } finally {
    try { setFrame(previous); } catch { restoreFrame(previous); }
  }
}

// The value of `key` in the current frame, or `defaultValue`.
// A node for `key` is the answer, whatever its kind: a removal node
// (AsyncLocalStorage#disable) holds the instance's defaultValue.
//
// In a wide frame, a key that is not in the nodes above the index below the
// head (its bit is not in the head's mask; see internal/frames) goes to that
// index directly, without the walk: a miss costs the same few loads as a
// hit in the index, however many keys the frame holds.
function lookup(key, defaultValue) {
  const head = getFrame();
  if (head === undefined) return defaultValue;
  if (head.key === key) return head.value;
  const base = head.base;
  if (base !== undefined && base.layer === kLayer) {
    const id = keyIdOf(key);
    if (id >= 0 && (head.mask & keyBit(id)) === 0) {
      const value = tableGet(base, id);
      return value === kMissing ? defaultValue : value;
    }
  }
  for (let node = head.next; node !== undefined; node = node.next) {
    if (node.key === key) return node.value;
    const table = node.table;
    if (table !== undefined && table.layer === kLayer) {
      const value = tableLookup(table, key);
      return value === kMissing ? defaultValue : value;
    }
  }
  return defaultValue;
}

// OrdinaryCreateFromConstructor(NewTarget, "%AsyncContext.X.prototype%"):
// a class falls back to %Object.prototype% when NewTarget's prototype is
// not an object; the proposal falls back to the intrinsic prototype.
function fixPrototype(instance, newTarget, intrinsic) {
  if (newTarget === Variable || newTarget === Snapshot) return;
  const proto = newTarget.prototype;
  if ((typeof proto !== 'object' || proto === null) &&
      typeof proto !== 'function') {
    ObjectSetPrototypeOf(instance, intrinsic);
  }
}

// ---------------------------------------------------------------------------
// AsyncContext.Variable

let prepareRun;  // the class's part of run (see makeRunMethod)

class Variable {
  #name;
  #defaultValue;

  // Variable(options): a non-object `options` is ignored; `name` is read
  // only if present (HasProperty, then one Get) and converted with
  // ToString; then `defaultValue` is read.
  constructor(options) {
    let name = '';
    let defaultValue;
    if ((typeof options === 'object' && options !== null) ||
        typeof options === 'function') {
      if (ReflectHas(options, 'name')) name = `${options.name}`;
      defaultValue = options.defaultValue;
    }
    this.#name = name;
    this.#defaultValue = defaultValue;
    fixPrototype(this, new.target, Variable.prototype);
    ensureKeyId(this);
  }

  get name() {
    return this.#name;
  }

  get() {
    return lookup(this, this.#defaultValue);
  }

  static {
    // The brand check comes first (a TypeError for a non-Variable).
    prepareRun = (variable, fn) => {
      variable.#name;
      if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
    };
  }
}

// As in the proposal, fn is called with `this` undefined.
defineValue(Variable.prototype, 'run', makeRunMethod(prepareRun, undefined),
            true, false);
// The original get, before the class can reach user code (the brand check
// of ContextKey::FromJavaScript, through internal/install).
const variableGet = Variable.prototype.get;

// ---------------------------------------------------------------------------
// AsyncContext.Snapshot

class Snapshot {
  #frame = getFrame();

  constructor() {
    fixPrototype(this, new.target, Snapshot.prototype);
  }

  run(fn, ...args) {
    const frame = this.#frame;
    if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
    return runInFrame(frame, fn, undefined, args);
  }

  static wrap(fn) {
    if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
    const frame = getFrame();
    // A method: it has `this` and is not a constructor.
    const {wrapped} = {
      wrapped(...args) {
        return runInFrame(frame, fn, this, args);
      },
    };
    copyNameAndLength(wrapped, fn, 'wrapped');
    return wrapped;
  }
}

// The proposal's CopyNameAndLength(F, Target, prefix): length from an own
// numeric `length` (clamped to a non-negative integer, Infinity kept), name
// from `name` if it is a string; errors from the getters propagate.
function copyNameAndLength(wrapped, target, prefix) {
  let length = 0;
  if (hasOwn(target, 'length')) {
    const targetLength = target.length;
    if (typeof targetLength === 'number') {
      if (targetLength === Infinity) {
        length = Infinity;
      } else if (targetLength === -Infinity || targetLength !== targetLength) {
        length = 0;
      } else {
        length = MathMax(MathTrunc(targetLength), 0);
      }
    }
  }
  defineValue(wrapped, 'length', length, false, false);
  let name = target.name;
  if (typeof name !== 'string') name = '';
  defineValue(wrapped, 'name', `${prefix} ${name}`, false, false);
}

defineValue(Variable.prototype, SymbolToStringTag, 'AsyncContext.Variable',
            false, false);
defineValue(Snapshot.prototype, SymbolToStringTag, 'AsyncContext.Snapshot',
            false, false);

// An ordinary object (its prototype is Object.prototype), as in the
// proposal: Variable and Snapshot writable, configurable, not enumerable.
const AsyncContext = {};
defineValue(AsyncContext, 'Variable', Variable, true, false);
defineValue(AsyncContext, 'Snapshot', Snapshot, true, false);
defineValue(AsyncContext, SymbolToStringTag, 'AsyncContext', false, false);

module.exports = {
  __proto__: null,
  makeRunMethod,
  lookup,
  AsyncContext,
  variableGet,
};
