// Copyright 2026 the asyncctx authors. All rights reserved.
//
// FinalizationRegistry whose cleanup callback runs in the context in which
// the registry was constructed (the AsyncContext proposal: the callback is
// a job callback, HostMakeJobCallback at construction). V8 calls a
// registry's cleanup from a task of its own, in whatever frame is current
// then, and gives the embedder no hook there; so the constructor that
// Runtime::Install puts in the global's place (InstallOptions::
// finalization_registry_context) wraps the callback before V8 stores it:
// the wrapper enters the frame of the construction and, after the callback
// (also when it throws), puts back the frame it found, so the registry's
// context never outlives its callback.
//
// The replacement keeps the builtin's shape: a native function (so
// `toString()` is `function FinalizationRegistry() { [native code] }`)
// named FinalizationRegistry with length 1, whose `prototype` is the
// builtin's prototype object (so instanceof, the prototype's methods and
// `prototype.constructor` agree), which builds the registry with the
// builtin and NewTarget (so subclasses and Reflect.construct get their own
// prototype), and which throws the builtin's TypeErrors. What differs is
// in docs/semantics.md.

'use strict';

const {
  FinalizationRegistryCtor,
  ObjectDefineProperty,
  ReflectApply,
  ReflectConstruct,
  TypeErrorCtor,
} = primordials;
const { newConstructor } = binding;
const {
  getFrame,
  restoreFrame,
  setFrame,
  slotFrame,
  swapFrame,
} = require('internal/frames');
const { builtinError } = require('internal/errors');

// The cleanup callback as V8 will call it: with the held value, `this`
// undefined, its result ignored.
function inFrame(cleanup, frame) {
  return (heldValue) => {
    const previous = swapFrame(frame);
    try {
      ReflectApply(cleanup, undefined, [heldValue]);
    } finally {
      try { setFrame(previous); } catch { restoreFrame(previous); }
    }
  };
}

function construct(newTarget, cleanup) {
  if (newTarget === undefined) {
    throw builtinError(TypeErrorCtor,
                       'Constructor FinalizationRegistry requires \'new\'');
  }
  if (typeof cleanup !== 'function') {
    throw builtinError(TypeErrorCtor,
                       'FinalizationRegistry: cleanup must be callable');
  }
  return ReflectConstruct(FinalizationRegistryCtor,
                          [inFrame(cleanup, slotFrame(getFrame()))],
                          newTarget);
}

const FinalizationRegistry =
    newConstructor('FinalizationRegistry', 1, construct);
// As the builtin's: not writable, enumerable or configurable.
ObjectDefineProperty(FinalizationRegistry, 'prototype', {
  __proto__: null,
  value: FinalizationRegistryCtor.prototype,
  writable: false,
  enumerable: false,
  configurable: false,
});

module.exports = {
  __proto__: null,
  FinalizationRegistry,
};
