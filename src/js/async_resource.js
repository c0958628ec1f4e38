// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncResource. Its ids, frame and destroy state are private fields.

'use strict';

const {
  NumberIsSafeInteger,
  RangeErrorCtor,
  ReflectApply,
  SymbolPrototypeToString,
  TypeErrorCtor,
  defineValue,
  newList,
} = primordials;
const {
  constants,
  depth: stackDepth,
  fatalStackCorruption,
  fields,
  hookFields,
  queueDestroy,
  stack,
} = binding;
const {
  kExecutionAsyncId,
  kTriggerAsyncId,
  kInit,
  kBefore,
  kAfter,
  kDestroy,
  kTotals,
} = constants;
const {
  getFrame,
  restoreFrame,
  setFrame,
  slotFrame,
} = require('internal/frames');
const {
  invalidArgType,
  makeError,
  safeConstructorName,
  validateFunction,
} = require('internal/errors');
const {
  defaultTriggerAsyncId,
  newAsyncId,
  pushAsyncContext,
  resources,
} = require('internal/execution_stack');
const { emitAfter, emitBefore, emitInit } = require('internal/hooks');
const {
  markDestroyedByHand,
  trackForDestroy,
} = require('internal/destroy_registry');

// An async id for a message: numbers as they are, anything else described
// without calling into it (an object with no primitive conversion must give
// ERR_INVALID_ASYNC_ID, not a TypeError from the conversion).
function describeAsyncId(value) {
  switch (typeof value) {
    case 'symbol':
      return SymbolPrototypeToString(value);
    case 'object':
      if (value === null) return 'null';
      return safeConstructorName(value) === '' ?
          '[Object: null prototype] {}' :
          `[object ${safeConstructorName(value)}]`;
    case 'function':
      return `[Function: ${value.name}]`;
    case 'bigint':
      return `${value}n`;
    default:
      return `${value}`;
  }
}

// [fn, thisArg, ...args] without the array iterator.
function scopeArgs(fn, thisArg, args) {
  const n = args.length;
  // Array literals define their elements (no setter can run).
  if (n === 0) return [fn, thisArg];
  if (n === 1) return [fn, thisArg, args[0]];
  if (n === 2) return [fn, thisArg, args[0], args[1]];
  const list = newList(n + 2);
  list[0] = fn;
  list[1] = thisArg;
  for (let i = 0; i < n; i++) list[i + 2] = args[i];
  return list;
}

class AsyncResource {
  #asyncId;
  #triggerAsyncId;
  #frame;
  #destroyed = false;
  #tracked = false;

  constructor(type, options) {
    if (typeof type !== 'string') throw invalidArgType('type', 'string', type);
    let triggerAsyncId;
    let requireManualDestroy = false;
    if (typeof options === 'number') {
      triggerAsyncId = options;
    } else if (options === undefined || options === null) {
      triggerAsyncId = defaultTriggerAsyncId();
    } else {
      triggerAsyncId = options.triggerAsyncId;
      if (triggerAsyncId === undefined) {
        triggerAsyncId = defaultTriggerAsyncId();
      }
      requireManualDestroy = !!options.requireManualDestroy;
    }
    if (!NumberIsSafeInteger(triggerAsyncId) || triggerAsyncId < -1) {
      throw makeError(
          RangeErrorCtor, 'ERR_INVALID_ASYNC_ID',
          `Invalid triggerAsyncId value: ${describeAsyncId(triggerAsyncId)}`);
    }
    this.#frame = getFrame();
    const asyncId = newAsyncId();
    this.#asyncId = asyncId;
    this.#triggerAsyncId = triggerAsyncId;
    if (hookFields[kTotals] > 0) {
      if (hookFields[kInit] > 0) {
        if (type.length === 0) {
          throw makeError(TypeErrorCtor, 'ERR_ASYNC_TYPE',
                          `Invalid name for async "type": ${type}`);
        }
        emitInit(asyncId, type, triggerAsyncId, this);
      }
      if (hookFields[kDestroy] > 0 && !requireManualDestroy) {
        this.#tracked = true;
        trackForDestroy(this, asyncId);
      }
    }
  }

  runInAsyncScope(fn, thisArg, ...args) {
    if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
    const asyncId = this.#asyncId;
    const previousFrame = getFrame();
    pushAsyncContext(asyncId, this.#triggerAsyncId, this);
    try {
      setFrame(slotFrame(this.#frame));
      if (hookFields[kBefore] > 0) emitBefore(asyncId);
      return ReflectApply(fn, thisArg, args);
    } finally {
      try {
        if (hookFields[kAfter] > 0) emitAfter(asyncId);
      } finally {
        // The pop is inlined and comes first: when fn overflowed the
        // stack, a call made here can overflow again at the same depth,
        // skip the pop, and leave an outer level to find the wrong id on
        // top (fatal).
        const depth = stackDepth[0];
        if (depth > 0) {
          if (fields[kExecutionAsyncId] !== asyncId) {
            fatalStackCorruption(fields[kExecutionAsyncId], asyncId);
          }
          const offset = (depth - 1) * 2;
          fields[kExecutionAsyncId] = stack[offset];
          fields[kTriggerAsyncId] = stack[offset + 1];
          stackDepth[0] = depth - 1;
          resources[depth - 1] = undefined;
        }
        try {
          setFrame(previousFrame);
        } catch {
          restoreFrame(previousFrame);
        }
      }
    }
  }

  emitDestroy() {
    if (!this.#destroyed) {
      this.#destroyed = true;
      if (this.#tracked) {
        this.#tracked = false;
        markDestroyedByHand(this.#asyncId);
      }
      if (hookFields[kDestroy] > 0) queueDestroy(this.#asyncId);
    }
    return this;
  }

  asyncId() {
    return this.#asyncId;
  }

  triggerAsyncId() {
    return this.#triggerAsyncId;
  }

  // As in Node.js, the bound function calls this.runInAsyncScope as it is
  // when called (an override in a subclass, or a patched prototype, runs).
  bind(fn, thisArg) {
    validateFunction(fn, 'fn');
    const resource = this;
    let bound;
    if (thisArg === undefined) {
      bound = function(...args) {
        return ReflectApply(resource.runInAsyncScope, resource,
                            scopeArgs(fn, this, args));
      };
    } else {
      // Node.js binds runInAsyncScope as it is at bind time here.
      const runInAsyncScope = this.runInAsyncScope;
      bound = function(...args) {
        return ReflectApply(runInAsyncScope, resource,
                            scopeArgs(fn, thisArg, args));
      };
    }
    defineValue(bound, 'length', fn.length, false, false);
    defineValue(bound, 'asyncResource', this, true, true);
    return bound;
  }

  static bind(fn, type, thisArg) {
    validateFunction(fn, 'fn');
    type = type || fn.name || 'bound-anonymous-fn';
    return new AsyncResource(type).bind(fn, thisArg);
  }
}

module.exports = {
  __proto__: null,
  AsyncResource,
};
