// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Primordials: every builtin this layer uses, captured when the layer is
// compiled (at Runtime::Install, before any user code of the context runs),
// as Node.js's primordials are. Nothing below is looked up through a global
// or through a prototype chain that user code controls after install:
//
// * methods are called through uncurryThis/ReflectApply of the originals;
// * property descriptors have a null prototype (`Object.prototype.get = fn`
//   cannot turn a data descriptor into an accessor);
// * internal arrays are made by newList with every element defined, and
//   are only accessed within their length: no index access reaches a setter
//   or getter on Array.prototype, and nothing consults Symbol.iterator or
//   Symbol.species;
// * per-object state lives in private names (see internal/frames), which V8
//   implements as private symbols: invisible to Reflect.ownKeys, to
//   Proxies and to every property walk.
//
// The other modules take these as `primordials`.

'use strict';

const ReflectApply = Reflect.apply;
const ReflectHas = Reflect.has;
const ReflectConstruct = Reflect.construct;
const ObjectDefineProperty = Object.defineProperty;
const ObjectFreeze = Object.freeze;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectPrototypeHasOwnProperty = Object.prototype.hasOwnProperty;
const NumberIsSafeInteger = Number.isSafeInteger;
const MathMax = Math.max;
const MathTrunc = Math.trunc;
const ArrayIsArray = Array.isArray;
const ArrayCtor = Array;
const ArrayFrom = Array.from;
const ErrorCtor = Error;
const TypeErrorCtor = TypeError;
const RangeErrorCtor = RangeError;
const SymbolToStringTag = Symbol.toStringTag;
// The key of a disposable's dispose method. Where V8 has no Symbol.dispose
// (10.2 has neither `using` nor the symbol), the registered symbol that
// Node.js 18.18 and 20 used before V8 had one; the global Symbol is left as
// it is.
const SymbolDispose = typeof Symbol.dispose === 'symbol' ?
    Symbol.dispose : Symbol.for('nodejs.dispose');
const SetCtor = Set;
const FinalizationRegistryCtor = FinalizationRegistry;
const MapCtor = Map;
const WeakRefCtor = WeakRef;
const WeakSetCtor = WeakSet;
const PromiseCtor = Promise;
const PromiseResolve = Promise.resolve.bind(Promise);
const PromiseReject = Promise.reject.bind(Promise);
const uncurryThis = (fn) => (self, ...args) => ReflectApply(fn, self, args);
const StringPrototypeSlice = uncurryThis(String.prototype.slice);
const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);
const SymbolPrototypeToString = uncurryThis(Symbol.prototype.toString);
const SetPrototypeAdd = uncurryThis(Set.prototype.add);
const SetPrototypeDelete = uncurryThis(Set.prototype.delete);
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
const WeakRefPrototypeDeref = uncurryThis(WeakRef.prototype.deref);
const WeakSetPrototypeAdd = uncurryThis(WeakSet.prototype.add);
const WeakSetPrototypeHas = uncurryThis(WeakSet.prototype.has);
const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
const FinalizationRegistryPrototypeRegister =
    uncurryThis(FinalizationRegistry.prototype.register);
const hasOwn = (object, key) =>
  ReflectApply(ObjectPrototypeHasOwnProperty, object, [key]);

// A new array of `length` elements, all undefined.
function newList(length) {
  // Array.from over a null-prototype array-like defines each element (no
  // setter can run, no iterator is looked up). The list never grows: it is
  // only read and written within its length, where every element exists,
  // so no access reaches Array.prototype (and V8 keeps its fast paths, which
  // it does not for arrays with another prototype).
  return ReflectApply(ArrayFrom, ArrayCtor, [{__proto__: null, length}]);
}

// Defines a data property (a null-prototype descriptor), configurable
// unless `configurable` is false.
function defineValue(object, key, value, writable, enumerable,
                     configurable = true) {
  ObjectDefineProperty(object, key, {
    __proto__: null,
    value,
    writable,
    enumerable,
    configurable,
  });
}

module.exports = {
  __proto__: null,
  ReflectApply,
  ReflectHas,
  ReflectConstruct,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectSetPrototypeOf,
  ObjectGetOwnPropertyDescriptor,
  NumberIsSafeInteger,
  MathMax,
  MathTrunc,
  ArrayIsArray,
  ErrorCtor,
  TypeErrorCtor,
  RangeErrorCtor,
  SymbolToStringTag,
  SymbolDispose,
  SetCtor,
  FinalizationRegistryCtor,
  MapCtor,
  WeakRefCtor,
  WeakSetCtor,
  PromiseCtor,
  PromiseResolve,
  PromiseReject,
  MapPrototypeGet,
  MapPrototypeSet,
  MapPrototypeDelete,
  WeakRefPrototypeDeref,
  WeakSetPrototypeAdd,
  WeakSetPrototypeHas,
  PromisePrototypeThen,
  StringPrototypeSlice,
  StringPrototypeIndexOf,
  SymbolPrototypeToString,
  SetPrototypeAdd,
  SetPrototypeDelete,
  FinalizationRegistryPrototypeRegister,
  hasOwn,
  newList,
  defineValue,
};
