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
const RangeErrorPrototype = RangeErrorCtor.prototype;
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

// A stack overflow of the program's own depth, caught by the layer around a
// hook callback that the program's code called (internal/hooks): `err` is a
// RangeError, and the stack is still at its limit where it was caught (a
// hook that recursed by itself has unwound to a shallow stack by then, and
// its error is the hook's). Such an error is the program's: its code is
// that deep, and gets the RangeError (rethrown), never a fatal hook error.
// Found by where it happened, not by a message or a line number.
function isProgramStackOverflow(err) {
  if (!nearStackLimit()) return false;
  try {
    return err !== null && typeof err === 'object' &&
        ObjectGetPrototypeOf(err) === RangeErrorPrototype;
  } catch {
    // A Proxy's trap overflowed too.
    return true;
  }
}

// Whether kProbeFrames more frames of a small function (60-90 bytes each)
// would overflow the stack here. That is more than V8 keeps free for
// compiling a function (40 KB): a hook callback called for the first time
// fails to compile, with a RangeError, that much before the limit.
const kProbeFrames = 1000;
let probeFrames = 0;
function probeStack(n) {
  return n === 0 ? 0 : probeStack(n - 1) + 1;
}
function nearStackLimit() {
  try {
    probeStack(probeFrames);
    return false;
  } catch {
    return true;
  }
}
// Compiled now, from a shallow stack: V8 compiles a function at its first
// call, and compiling needs more stack than running. (If V8 drops the
// bytecode of an unused function later, compiling it again at the limit
// fails with a RangeError, caught above: the answer there is the same.)
isProgramStackOverflow(undefined);
probeFrames = kProbeFrames;

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
  isProgramStackOverflow,
};
