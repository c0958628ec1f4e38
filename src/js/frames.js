// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Frames: the one implementation of the context mapping, shared by
// AsyncLocalStorage, AsyncContext and the C++ API (src/frame.cc calls the
// functions below through the layer's internals; nothing else reads a
// frame).
//
// A frame is an immutable singly linked list of nodes, each mapping a
// key (an AsyncLocalStorage or an AsyncContext.Variable) to its value, the
// most recently set key first. A frame is never changed after it is made:
// `frameWith` shares the tail and copies only the nodes before the key it
// replaces. Nodes never leave this layer: V8 keeps the current one in
// its continuation-preserved embedder data, which JavaScript cannot read,
// and promises carry theirs in a private name (PromiseState below).
//
// The root frame has two spellings: `undefined` (what V8 leaves between
// jobs) and ROOT, an empty node that this layer and the runtime put in the
// slot whenever they establish the root themselves. V8 10.2 skips an
// undefined slot when it queues a promise job (the job then runs in
// whatever frame happens to be current, and nothing resets it after), but
// captures ROOT like any frame: a job queued at ROOT runs at the root and
// V8 clears the slot after it. So an `enterWith` inside one such job cannot
// reach the next job, whether or not promise hooks are installed.

'use strict';

const { ObjectFreeze } = primordials;
const {
  getFrame,
  setFrame,
  restoreFrame,
  swapFrame: nativeSwapFrame,
} = binding;

// ---------------------------------------------------------------------------
// The slot: V8's continuation-preserved embedder data, through the binding.
//
//   getFrame() / setFrame(f)   read and write the slot (on V8 >= 12 V8's
//                              own accessors from the extras binding object,
//                              which TurboFan compiles to a load and a store)
//   restoreFrame(f)            the native setFrame, for restores (below)
//   swapFrame(f)               sets f, returns the previous frame
//
// Restoring a frame in a `finally` block must not fail, even when the
// `try` block ended in a stack overflow. V8 calls a native function (an
// API callback) without a stack check, but V8's own accessors, when they
// are really called (in the interpreter, or in code that deoptimized to
// it to run the `finally` block), check the stack first and can throw a
// RangeError there. So every restore is written
//
//   try { setFrame(previous); } catch { restoreFrame(previous); }
//
// In optimized code the first call is a store that cannot throw; the
// native fallback runs only at the stack limit. (Where setFrame is the
// native function, the catch is never taken.)
//
// swapFrame: a native call, or (where getFrame and setFrame are V8's own
// accessors) their composition. A stack overflow in it changes nothing.
const swapFrame = nativeSwapFrame !== undefined ? nativeSwapFrame :
    (frame) => {
      const previous = getFrame();
      setFrame(frame);
      return previous;
    };

// A node is an object literal {key, value, next, resource}: a literal
// defines its properties (no setter on Object.prototype can run), every node
// has the same shape (lookups stay monomorphic), only own properties are
// ever read or written, and no node escapes this layer. `resource` is
// executionAsyncResource() where no resource is on the stack (made on first
// use; see internal/execution_stack).
function newNode(key, value, next) {
  return {key, value, next, resource: undefined};
}

// A key no AsyncLocalStorage or Variable can be.
const kNoKey = ObjectFreeze({__proto__: null});
const ROOT = newNode(kNoKey, undefined, undefined);
// What frameLookup returns for a key that the frame does not hold.
const kMissing = ObjectFreeze({__proto__: null});

function isRootFrame(frame) {
  return frame === undefined || frame === ROOT;
}

// The value of `key` in `frame`, or kMissing.
function frameLookup(frame, key) {
  for (let node = frame; node !== undefined; node = node.next) {
    if (node.key === key) return node.value;
  }
  return kMissing;
}

// `frame` with `key` mapped to `value`.
function frameWith(frame, key, value) {
  if (frame === undefined || frame === ROOT) {
    return newNode(key, value, undefined);
  }
  return newNode(key, value, frameWithout(frame, key));
}

// `frame` without `key` (undefined when nothing is left). Shares every node
// after the removed one.
function frameWithout(frame, key) {
  let node = frame;
  while (node !== undefined && node.key !== key) node = node.next;
  if (node === undefined) return frame === ROOT ? undefined : frame;
  return copyUpTo(frame, node, node.next);
}

function copyUpTo(node, stop, tail) {
  if (node === stop) return tail;
  return newNode(node.key, node.value, copyUpTo(node.next, stop, tail));
}

// The frame to put in the slot for `frame`: the root as ROOT, so that V8
// captures it (see above).
function slotFrame(frame) {
  return frame === undefined ? ROOT : frame;
}

// ---------------------------------------------------------------------------
// Per-object state in private names. A class whose base constructor returns
// its argument defines its private fields on that object (the "return
// override" idiom): the state is stored under V8 private symbols, the same
// mechanism as v8::Private, so it is invisible to Reflect.ownKeys,
// Object.getOwnPropertySymbols, Proxies and prototype chains, and only the
// accessors below can read or write it.

class Stamp {
  constructor(target) {
    return target;
  }
}

let promiseStateOf;     // (promise) => true if the promise has state
let promiseFrameOf;     // (promise) => its frame, or undefined
let promiseAsyncIdOf;   // (promise) => its async id, or undefined
let promiseTriggerIdOf;
let setPromiseIds;      // (promise, asyncId, triggerId)

class PromiseState extends Stamp {
  #frame;
  #asyncId;
  #triggerId;

  constructor(promise, frame, asyncId, triggerId) {
    super(promise);
    this.#frame = frame;
    this.#asyncId = asyncId;
    this.#triggerId = triggerId;
  }

  static {
    promiseStateOf = (promise) => #frame in promise;
    promiseFrameOf = (promise) =>
      (#frame in promise ? promise.#frame : undefined);
    promiseAsyncIdOf = (promise) =>
      (#asyncId in promise ? promise.#asyncId : undefined);
    promiseTriggerIdOf = (promise) =>
      (#triggerId in promise ? promise.#triggerId : undefined);
    setPromiseIds = (promise, asyncId, triggerId) => {
      promise.#asyncId = asyncId;
      promise.#triggerId = triggerId;
    };
  }
}

// Records `frame` and the ids on a promise that has no state yet.
function stampPromise(promise, frame, asyncId, triggerId) {
  new PromiseState(promise, frame, asyncId, triggerId);
}

module.exports = {
  __proto__: null,
  getFrame,
  setFrame,
  restoreFrame,
  swapFrame,
  newNode,
  ROOT,
  kMissing,
  isRootFrame,
  frameLookup,
  frameWith,
  frameWithout,
  slotFrame,
  promiseStateOf,
  promiseFrameOf,
  promiseAsyncIdOf,
  promiseTriggerIdOf,
  setPromiseIds,
  stampPromise,
};
