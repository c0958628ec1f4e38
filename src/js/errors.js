// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Errors with Node.js's codes and wording, and argument validation.

'use strict';

const {
  ArrayIsArray,
  ErrorCtor,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  RangeErrorCtor,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  SymbolPrototypeToString,
  TypeErrorCtor,
  defineValue,
} = primordials;
const { constants, strings } = binding;
const { kErrorTypeTypeError, kErrorTypeRangeError } = constants;
const { kScriptPrefix, kRuntimeDestroyed } = strings;

function describeReceived(value) {
  if (value == null) return ` Received ${value}`;
  if (typeof value === 'function') {
    return ` Received function ${value.name}`;
  }
  if (typeof value === 'object') {
    const ctor = safeConstructorName(value);
    if (ctor) return ` Received an instance of ${ctor}`;
    return ' Received [object Object]';
  }
  let shown;
  if (typeof value === 'symbol') {
    shown = SymbolPrototypeToString(value);
  } else if (typeof value === 'bigint') {
    shown = `${value}n`;
  } else if (typeof value === 'string') {
    shown = value.length > 28 ? `'${StringPrototypeSlice(value, 0, 25)}...'` :
                                `'${value}'`;
  } else {
    shown = `${value}`;
  }
  return ` Received type ${typeof value} (${shown})`;
}

function safeConstructorName(value) {
  try {
    let proto = ObjectGetPrototypeOf(value);
    while (proto !== null) {
      const desc = ObjectGetOwnPropertyDescriptor(proto, 'constructor');
      if (desc !== undefined && typeof desc.value === 'function' &&
          desc.value.name !== '') {
        return desc.value.name;
      }
      proto = ObjectGetPrototypeOf(proto);
    }
  } catch {
    // A revoked Proxy or a throwing trap: describe it generically.
  }
  return '';
}

// The stack without the lines of this layer's own frames.
function withoutInternalFrames(stack) {
  let kept = '';
  let start = 0;
  while (start <= stack.length) {
    let end = StringPrototypeIndexOf(stack, '\n', start);
    if (end < 0) end = stack.length;
    const line = StringPrototypeSlice(stack, start, end);
    if (StringPrototypeIndexOf(line, kScriptPrefix) < 0) {
      kept = kept === '' ? line : `${kept}\n${line}`;
    }
    start = end + 1;
  }
  return kept;
}

// Node's error shape: `code` as an own property, and `[code]` in the
// stack's first line and in toString() (`TypeError [ERR_X]: message`).
function makeError(Ctor, code, message) {
  const err = new Ctor(message);
  const name = err.name;
  defineValue(err, 'name', `${name} [${code}]`, true, false);
  // V8 formats the stack lazily, with the name of this moment; our own
  // frames are left out, so the stack starts at the caller's call.
  const stack = err.stack;
  if (typeof stack === 'string') {
    defineValue(err, 'stack', withoutInternalFrames(stack), true, false);
  }
  delete err.name;
  defineValue(err, 'code', code, true, true);
  defineValue(err, 'toString', function toString() {
    return `${name} [${code}]: ${this.message}`;
  }, true, false);
  return err;
}

function invalidArgType(name, expected, value) {
  return makeError(
      TypeErrorCtor, 'ERR_INVALID_ARG_TYPE',
      `The "${name}" argument must be of type ${expected}.` +
          describeReceived(value));
}

function validateFunction(value, name) {
  if (typeof value !== 'function') {
    throw invalidArgType(name, 'function', value);
  }
}

function validateObjectOrUndefined(value, name) {
  if (value !== undefined &&
      (value === null || typeof value !== 'object' || ArrayIsArray(value))) {
    throw invalidArgType(name, 'object', value);
  }
}

// What every entry point throws once the Runtime of this context is gone
// (the same message as the native bindings). Its views of the execution
// stack are detached then (length 0: every element reads undefined).
function runtimeDestroyed() {
  return new ErrorCtor(kRuntimeDestroyed);
}

// For the C++ error helpers (include/asyncctx/errors.h): `kind` is an
// asyncctx::ErrorType.
function makeNodeError(kind, code, message) {
  const Ctor = kind === kErrorTypeTypeError ? TypeErrorCtor :
      kind === kErrorTypeRangeError          ? RangeErrorCtor :
                                               ErrorCtor;
  return makeError(Ctor, code, message);
}

// An error as V8 itself makes it for a builtin (no code): for what stands in
// for a builtin, such as FinalizationRegistry.
function builtinError(Ctor, message) {
  const err = new Ctor(message);
  const stack = err.stack;
  if (typeof stack === 'string') {
    defineValue(err, 'stack', withoutInternalFrames(stack), true, false);
  }
  return err;
}

module.exports = {
  __proto__: null,
  builtinError,
  describeReceived,
  safeConstructorName,
  makeError,
  invalidArgType,
  validateFunction,
  validateObjectOrUndefined,
  runtimeDestroyed,
  makeNodeError,
};
