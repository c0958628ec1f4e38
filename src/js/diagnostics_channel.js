// Copyright 2026 the asyncctx authors. All rights reserved.
//
// diagnostics_channel, with Node.js 24's API and semantics
// (docs/semantics.md, "diagnostics_channel"): named channels held weakly
// while nothing subscribes, publish, bound stores entered by runStores, and
// tracing channels (traceSync, tracePromise, traceCallback).
//
// What differs from Node.js's lib/diagnostics_channel.js, all invisible to
// a program that uses only the documented API:
//
// * A channel's state is private (no `_subscribers`, `_stores`, `_index`
//   properties). As in Node.js, a channel with a subscriber or a bound store
//   has another prototype (inheriting from Channel.prototype, with the real
//   publish and hasSubscribers), so that publishing to a channel nobody
//   listens to calls an empty method; it has no `constructor` of its own.
// * runStores enters the stores that are this context's AsyncLocalStorage
//   instances with their own `run` by making one frame and setting it once
//   (no closure per store, no nested run calls); any other store is entered
//   by calling its `run(value, next)` as Node.js does. Transforms run in the
//   same order and each sees the stores entered before it.
// * An exception of a subscriber or transform is reported (as an uncaught
//   exception, through the host's handler) from a microtask queued with
//   the context of the publish, where Node.js uses process.nextTick.

'use strict';

const {
  MapCtor,
  MapPrototypeDelete,
  MapPrototypeGet,
  MapPrototypeSet,
  FinalizationRegistryCtor,
  FinalizationRegistryPrototypeRegister,
  MathTrunc,
  ObjectSetPrototypeOf,
  PromiseCtor,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  ReflectApply,
  SetCtor,
  SetPrototypeAdd,
  SetPrototypeDelete,
  TypeErrorCtor,
  WeakRefCtor,
  WeakRefPrototypeDeref,
  defineValue,
  newList,
} = primordials;
const { constants, contextFields } = binding;
const { kRepairActive } = constants;
const {
  getFrame,
  restoreFrame,
  setFrame,
} = require('internal/frames');
const {
  describeReceived,
  makeError,
  validateFunction,
} = require('internal/errors');
const { activateRepairOnce } = require('internal/promise_hooks');
const { enterStorage, storageRun } = require('internal/async_local_storage');
const { queueMicrotask } = require('internal/queue_microtask');

// An exception of a subscriber or a transform: reported as uncaught after
// the current job, in the context of the publish (Node.js: process.nextTick
// then triggerUncaughtException).
function reportLater(err) {
  queueMicrotask(() => {
    throw err;
  });
}

// ---------------------------------------------------------------------------
// The registry: name -> WeakRef(channel). A channel with subscribers or
// bound stores is also in `active`, which holds it strongly (Node.js counts
// references on a WeakReference). Finalization removes an entry whose
// channel is gone (unless another channel took the name since).

const channels = new MapCtor();
const active = new SetCtor();
const finalizer = new FinalizationRegistryCtor((name) => {
  const ref = MapPrototypeGet(channels, name);
  if (ref !== undefined && WeakRefPrototypeDeref(ref) === undefined) {
    MapPrototypeDelete(channels, name);
  }
});

function registered(name) {
  const ref = MapPrototypeGet(channels, name);
  return ref === undefined ? undefined : WeakRefPrototypeDeref(ref);
}

function register(name, channel) {
  FinalizationRegistryPrototypeRegister(finalizer, channel, name);
  MapPrototypeSet(channels, name, new WeakRefCtor(channel));
}

// [...list, value] and list without the element at `index`: the lists are
// never changed in place, so a publish or runStores in progress keeps the
// list it started with (as in Node.js).
function appended(list, value) {
  const n = list.length;
  const copy = newList(n + 1);
  for (let i = 0; i < n; i++) copy[i] = list[i];
  copy[n] = value;
  return copy;
}

function removed(list, index) {
  const n = list.length;
  const copy = newList(n - 1);
  for (let i = 0, j = 0; i < n; i++) {
    if (i !== index) copy[j++] = list[i];
  }
  return copy;
}

const kEmpty = newList(0);

// A bound store: {store, transform}. Stores are compared by identity, as
// the keys of Node.js's Map.
function storeIndex(stores, store) {
  for (let i = 0; i < stores.length; i++) {
    if (stores[i].store === store) return i;
  }
  return -1;
}

let subscribersOf;  // (channel) => its subscriber list
let storesOf;       // (channel) => its bound store list
let isChannel;      // (value) => true for a Channel
// The prototype of a channel with a subscriber or a bound store.
let activePrototype;

class Channel {
  #subscribers = kEmpty;
  #stores = kEmpty;

  constructor(name) {
    // As in Node.js: no validation here (channel() validates), and the new
    // channel takes the name.
    this.name = name;
    register(name, this);
  }

  // Before the first subscriber or store is added: the active prototype.
  // As in Node.js, this throws a TypeError for a channel that is not
  // extensible, and then nothing has changed.
  #activate() {
    if (this.#subscribers.length === 0 && this.#stores.length === 0) {
      ObjectSetPrototypeOf(this, activePrototype);
    }
  }

  #changed() {
    if (this.#subscribers.length === 0 && this.#stores.length === 0) {
      SetPrototypeDelete(active, this);
      // Back to the empty publish. A channel made non-extensible while
      // active keeps the active prototype, whose methods work for any
      // state.
      try {
        ObjectSetPrototypeOf(this, Channel.prototype);
      } catch {
        // Not extensible: stays as it is.
      }
    } else {
      SetPrototypeAdd(active, this);
    }
  }

  subscribe(subscription) {
    validateFunction(subscription, 'subscription');
    this.#activate();
    this.#subscribers = appended(this.#subscribers, subscription);
    this.#changed();
  }

  unsubscribe(subscription) {
    const subscribers = this.#subscribers;
    for (let i = 0; i < subscribers.length; i++) {
      if (subscribers[i] === subscription) {
        this.#subscribers = removed(subscribers, i);
        this.#changed();
        return true;
      }
    }
    return false;
  }

  bindStore(store, transform) {
    this.#activate();
    const stores = this.#stores;
    const entry = {store, transform};
    const index = storeIndex(stores, store);
    if (index === -1) {
      this.#stores = appended(stores, entry);
    } else {
      // Replacing keeps the store's place (a Map keeps its key's).
      const copy = appended(stores, entry);
      copy[index] = entry;
      this.#stores = removed(copy, stores.length);
    }
    this.#changed();
  }

  unbindStore(store) {
    const stores = this.#stores;
    const index = storeIndex(stores, store);
    if (index === -1) return false;
    this.#stores = removed(stores, index);
    this.#changed();
    return true;
  }

  // An inactive channel: nothing subscribes and no store is bound.
  get hasSubscribers() {
    return false;
  }

  publish(data) {}

  runStores(data, fn, thisArg, ...args) {
    return runStores(this, data, fn, thisArg, args);
  }

  static {
    subscribersOf = (channel) => channel.#subscribers;
    storesOf = (channel) => channel.#stores;
    isChannel = (value) =>
      typeof value === 'object' && value !== null && #stores in value;
    // Methods for any state (a channel that could not go back to
    // Channel.prototype may be inactive).
    activePrototype = {
      __proto__: Channel.prototype,
      get hasSubscribers() {
        return this.#subscribers.length !== 0 || this.#stores.length !== 0;
      },
      publish(data) {
        const subscribers = this.#subscribers;
        for (let i = 0; i < subscribers.length; i++) {
          try {
            const onMessage = subscribers[i];
            onMessage(data, this.name);
          } catch (err) {
            reportLater(err);
          }
        }
      },
    };
  }
}

// Channel#publish without the method lookup.
function publish(channel, data) {
  const subscribers = subscribersOf(channel);
  for (let i = 0; i < subscribers.length; i++) {
    try {
      const onMessage = subscribers[i];
      onMessage(data, channel.name);
    } catch (err) {
      reportLater(err);
    }
  }
}

// Channel#runStores: the stores bound last are entered first (outermost),
// as Node.js's chain of store.run calls does; then `data` is published and
// fn is called.
function runStores(channel, data, fn, thisArg, args) {
  const stores = storesOf(channel);
  if (stores.length === 0) {
    publish(channel, data);
    return ReflectApply(fn, thisArg, args);
  }
  return enterStores(channel, stores, stores.length - 1, data, fn, thisArg,
                     args);
}

function enterStores(channel, stores, from, data, fn, thisArg, args) {
  const previous = getFrame();
  let entered = false;
  try {
    for (let i = from; i >= 0; i--) {
      const {store, transform} = stores[i];
      let value = data;
      if (transform !== undefined) {
        try {
          value = transform(data);
        } catch (err) {
          // As in Node.js: reported, and this store is not entered.
          reportLater(err);
          continue;
        }
      }
      const run = store.run;
      if (run === storageRun) {
        const frame = enterStorage(store, getFrame(), value);
        if (frame !== undefined) {
          if (!entered) {
            if (contextFields[kRepairActive] !== 1) activateRepairOnce();
            entered = true;
          }
          setFrame(frame);
          continue;
        }
      }
      if (typeof run !== 'function') {
        throw new TypeErrorCtor('store.run is not a function');
      }
      // Any other store: its own run, around the rest.
      const next = i - 1;
      return ReflectApply(run, store, [value, () => {
        if (next < 0) {
          publish(channel, data);
          return ReflectApply(fn, thisArg, args);
        }
        return enterStores(channel, stores, next, data, fn, thisArg, args);
      }]);
    }
    publish(channel, data);
    return ReflectApply(fn, thisArg, args);
  } finally {
    if (entered) {
      try { setFrame(previous); } catch { restoreFrame(previous); }
    }
  }
}

function channel(name) {
  const existing = registered(name);
  if (existing !== undefined) return existing;
  if (typeof name !== 'string' && typeof name !== 'symbol') {
    throw makeError(
        TypeErrorCtor, 'ERR_INVALID_ARG_TYPE',
        'The "channel" argument must be one of type string or symbol.' +
            describeReceived(name));
  }
  return new Channel(name);
}

function subscribe(name, subscription) {
  return channel(name).subscribe(subscription);
}

function unsubscribe(name, subscription) {
  return channel(name).unsubscribe(subscription);
}

function hasSubscribers(name) {
  const existing = registered(name);
  if (existing === undefined) return false;
  return existing.hasSubscribers;
}

// ---------------------------------------------------------------------------
// Tracing channels.

const traceEvents = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];

function tracingChannelFrom(nameOrChannels, name) {
  if (typeof nameOrChannels === 'string') {
    return channel(`tracing:${nameOrChannels}:${name}`);
  }
  if (typeof nameOrChannels === 'object' && nameOrChannels !== null) {
    const value = nameOrChannels[name];
    if (!isChannel(value)) {
      throw makeError(
          TypeErrorCtor, 'ERR_INVALID_ARG_TYPE',
          `The "nameOrChannels.${name}" property must be an instance of ` +
              `Channel.${describeReceived(value)}`);
    }
    return value;
  }
  throw makeError(
      TypeErrorCtor, 'ERR_INVALID_ARG_TYPE',
      'The "nameOrChannels" argument must be of type string or an instance ' +
          `of TracingChannel or Object.${describeReceived(nameOrChannels)}`);
}

function anySubscribers(start, end, asyncStart, asyncEnd, error) {
  return subscribersOf(start).length !== 0 || storesOf(start).length !== 0 ||
      subscribersOf(end).length !== 0 || storesOf(end).length !== 0 ||
      subscribersOf(asyncStart).length !== 0 ||
      storesOf(asyncStart).length !== 0 ||
      subscribersOf(asyncEnd).length !== 0 ||
      storesOf(asyncEnd).length !== 0 || subscribersOf(error).length !== 0 ||
      storesOf(error).length !== 0;
}

class TracingChannel {
  #start;
  #end;
  #asyncStart;
  #asyncEnd;
  #error;

  constructor(nameOrChannels) {
    for (let i = 0; i < traceEvents.length; ++i) {
      const eventName = traceEvents[i];
      // As in Node.js: own, read-only, non-enumerable, non-configurable.
      const value = tracingChannelFrom(nameOrChannels, eventName);
      defineValue(this, eventName, value, false, false, false);
    }
    // The channels are fixed from here on (the properties cannot change).
    this.#start = this.start;
    this.#end = this.end;
    this.#asyncStart = this.asyncStart;
    this.#asyncEnd = this.asyncEnd;
    this.#error = this.error;
  }

  get hasSubscribers() {
    return anySubscribers(this.#start, this.#end, this.#asyncStart,
                          this.#asyncEnd, this.#error);
  }

  subscribe(handlers) {
    for (let i = 0; i < traceEvents.length; ++i) {
      const name = traceEvents[i];
      if (!handlers[name]) continue;
      this[name].subscribe(handlers[name]);
    }
  }

  unsubscribe(handlers) {
    let done = true;
    for (let i = 0; i < traceEvents.length; ++i) {
      const name = traceEvents[i];
      if (!handlers[name]) continue;
      if (!this[name].unsubscribe(handlers[name])) done = false;
    }
    return done;
  }

  traceSync(fn, context = {}, thisArg, ...args) {
    const start = this.#start;
    const end = this.#end;
    const error = this.#error;
    if (!anySubscribers(start, end, this.#asyncStart, this.#asyncEnd, error)) {
      return ReflectApply(fn, thisArg, args);
    }
    return runStores(start, context, traceSyncBody, undefined,
                     [end, error, fn, context, thisArg, args]);
  }

  tracePromise(fn, context = {}, thisArg, ...args) {
    const start = this.#start;
    const end = this.#end;
    const asyncStart = this.#asyncStart;
    const asyncEnd = this.#asyncEnd;
    const error = this.#error;
    if (!anySubscribers(start, end, asyncStart, asyncEnd, error)) {
      return ReflectApply(fn, thisArg, args);
    }

    function reject(err) {
      context.error = err;
      publish(error, context);
      publish(asyncStart, context);
      publish(asyncEnd, context);
      return PromiseReject(err);
    }

    function resolve(result) {
      context.result = result;
      publish(asyncStart, context);
      publish(asyncEnd, context);
      return result;
    }

    return runStores(start, context, tracePromiseBody, undefined,
                     [end, error, fn, context, thisArg, args, resolve, reject]);
  }

  traceCallback(fn, position = -1, context = {}, thisArg, ...args) {
    const start = this.#start;
    const end = this.#end;
    const asyncStart = this.#asyncStart;
    const asyncEnd = this.#asyncEnd;
    const error = this.#error;
    if (!anySubscribers(start, end, asyncStart, asyncEnd, error)) {
      return ReflectApply(fn, thisArg, args);
    }

    // args.at(position), then args.splice(position, 1, wrappedCallback), as
    // Node.js does, without Array.prototype (ToIntegerOrInfinity first: a
    // Symbol or a BigInt throws the TypeError of ToNumber).
    let index = +position;
    index = index !== index ? 0 : MathTrunc(index);
    if (index < 0) index += args.length;
    const callback = index >= 0 && index < args.length ? args[index] :
                                                          undefined;
    validateFunction(callback, 'callback');

    function wrappedCallback(err, res) {
      if (err) {
        context.error = err;
        publish(error, context);
      } else {
        context.result = res;
      }
      // As in Node.js: through asyncStart's stores, and nothing returned.
      runStores(asyncStart, context, traceCallbackBody, undefined,
                [asyncEnd, context, callback, this, arguments]);
    }

    args[index] = wrappedCallback;
    return runStores(start, context, traceCallbackStart, undefined,
                     [end, error, fn, context, thisArg, args]);
  }
}

function traceSyncBody(end, error, fn, context, thisArg, args) {
  try {
    const result = ReflectApply(fn, thisArg, args);
    context.result = result;
    return result;
  } catch (err) {
    context.error = err;
    publish(error, context);
    throw err;
  } finally {
    publish(end, context);
  }
}

function tracePromiseBody(end, error, fn, context, thisArg, args, resolve,
                          reject) {
  try {
    let promise = ReflectApply(fn, thisArg, args);
    // Node.js 24 converts a thenable (or any other value) to a promise.
    if (!(promise instanceof PromiseCtor)) promise = PromiseResolve(promise);
    return PromisePrototypeThen(promise, resolve, reject);
  } catch (err) {
    context.error = err;
    publish(error, context);
    throw err;
  } finally {
    publish(end, context);
  }
}

function traceCallbackStart(end, error, fn, context, thisArg, args) {
  try {
    return ReflectApply(fn, thisArg, args);
  } catch (err) {
    context.error = err;
    publish(error, context);
    throw err;
  } finally {
    publish(end, context);
  }
}

function traceCallbackBody(asyncEnd, context, callback, self, callArgs) {
  try {
    return ReflectApply(callback, self, callArgs);
  } finally {
    publish(asyncEnd, context);
  }
}

function tracingChannel(nameOrChannels) {
  return new TracingChannel(nameOrChannels);
}

const diagnosticsChannel = {
  __proto__: null,
  channel,
  hasSubscribers,
  subscribe,
  tracingChannel,
  unsubscribe,
  Channel,
};

module.exports = {
  __proto__: null,
  diagnosticsChannel,
};
