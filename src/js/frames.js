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
//
// Wide frames (many libraries, each with its own store, or deep nesting of
// distinct stores) must not make every lookup a walk over all of them. A
// node that is the kSpan-th of a run of nodes without an index gets an
// index of its whole frame (`table`, below): a persistent trie from the
// keys' ids to their values, made from the index below it plus the nodes
// above that, sharing every part it does not change. A lookup then walks
// at most kSpan nodes before it reaches an index. Nodes above an index may
// repeat a key the index holds: the node nearer the head wins, as it does
// in the walk, and a key removed from below an index is a *removal node*
// (frameWithout). An index belongs to the layer of the context that made it
// (key ids are per layer): another context's layer walks past it. Frames
// of fewer than kSpan keys never get an index and are what they were.

'use strict';

const {
  ObjectFreeze,
  WeakSetCtor,
  WeakSetPrototypeAdd,
  WeakSetPrototypeHas,
  newList,
} = primordials;
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
//
// `span` is the number of nodes from this one down to the first node with an
// index (`table`), or to the end of the frame; `table` is this node's index
// of its frame, or undefined. `base` is the index of this layer that a
// lookup of a key not in the nodes above it can go to straight away (the
// table of the first node at or below this one that has one), and `mask`
// the bits of the ids of the keys of the nodes above that node (keyBit):
// a key whose bit is not in the head's mask is in none of those nodes, so a
// lookup skips the walk (see internal/async_context's lookup). `base` is
// undefined where that does not hold: no index of this layer below, another
// layer's index on the way, or a key that cannot have an id. All four are
// set when `next` is (linkNode).
function newNode(key, value, next) {
  const node = {key, value, next, resource: undefined, span: 1,
                table: undefined, base: undefined, mask: 0};
  if (next !== undefined) linkNode(node, next);
  return node;
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
    if (node.key === key) return isRemoval(node) ? kMissing : node.value;
    const table = node.table;
    if (table !== undefined && table.layer === kLayer) {
      return tableLookup(table, key);
    }
  }
  return kMissing;
}

// `frame` with `key` mapped to `value`.
function frameWith(frame, key, value) {
  const node = newNode(key, value, undefined);
  linkTail(node, frame);
  return node;
}

// Makes `node` (a new head for `key`, not yet seen by anyone) the head of
// `frame` without `key`: its `next`, `span` and, every kSpan nodes, `table`.
// When `key` is in frame's index, the node shadows it instead.
function linkTail(node, frame) {
  if (frame === undefined || frame === ROOT) return;
  const key = node.key;
  let at = frame;
  while (at !== undefined && at.key !== key && !isIndexed(at)) {
    at = at.next;
  }
  let next;
  if (at === undefined || at.key !== key) {
    next = frame;  // not in frame, or only in its index (shadowed)
  } else {
    next = copyUpTo(frame, at, at.next);
  }
  if (next !== undefined) linkNode(node, next);
}

// `frame` without `key` (undefined when nothing is left), for
// AsyncLocalStorage#disable. Shares every node after the removed one. A key
// that an index below holds is removed by a removal node: a node for the key
// whose value is `missingValue` (what a lookup of the missing key gives, the
// instance's defaultValue, so that lookup need not tell it apart), known to
// frameLookup and to indexes as missing.
function frameWithout(frame, key, missingValue) {
  let node = frame;
  while (node !== undefined && node.key !== key && !isIndexed(node)) {
    node = node.next;
  }
  if (node === undefined) return frame === ROOT ? undefined : frame;
  if (node.key === key && isRemoval(node)) return frame;
  if (node.key === key && !isIndexed(node)) {
    // Removed from the nodes above the index, unless the index below holds
    // the key too (shadowed by this node).
    let indexed = node.next;
    while (indexed !== undefined && !isIndexed(indexed)) indexed = indexed.next;
    if (indexed === undefined || tableLookup(indexed.table, key) === kMissing) {
      return copyUpTo(frame, node, node.next);
    }
  } else if (node.key !== key && tableLookup(node.table, key) === kMissing) {
    return frame;
  }
  const removal = newNode(key, missingValue, frame);
  removalsMade = true;
  WeakSetPrototypeAdd(removals, removal);
  return removal;
}

const removals = new WeakSetCtor();
let removalsMade = false;

function isRemoval(node) {
  return removalsMade && WeakSetPrototypeHas(removals, node);
}

// ---------------------------------------------------------------------------
// Indexes of wide frames.
//
// An index is {root, shift}: a trie of arrays of 32 slots, indexed by five
// bits of a key's id per level from bit `shift` down; the last level holds
// the values (kMissing where a key is absent). Slot 32 of every array is
// the edit that made it: an insertion copies the arrays on its path, except
// those its own edit made, so making one index from kSpan keys copies each
// array once. Ids are small integers given to keys when they first reach an
// index, in a private name of this layer (a key from another context gets
// this context's id too; see ensureKeyId).

// The base of classes whose private names hold per-object state (below).
class Stamp {
  constructor(target) {
    return target;
  }
}

const kSpan = 8;
// This layer's mark on its indexes.
const kLayer = ObjectFreeze({__proto__: null});
const kBits = 5;
const kWidth = 32;
const kMask = 31;

let keyIdOf;   // (key) => its id, or -1
let giveKeyId;  // (key, id): the key has none yet
let nextKeyId = 0;

class KeyId extends Stamp {
  #id;

  constructor(key, id) {
    super(key);
    this.#id = id;
  }

  static {
    keyIdOf = (key) => (#id in key ? key.#id : -1);
    giveKeyId = (key, id) => { new KeyId(key, id); };
  }
}

// The key's id, given now if it has none; -1 if it cannot have one (an
// object that refuses private names), which keeps its frames unindexed.
// AsyncLocalStorage and Variable give their instances one when they are
// made, so that a lookup of a key that no index holds is the fast case of
// `#id in key`, not its miss (over 100 ns in V8 13 and 14); keys from
// another context, or the C++ API's, get theirs when an index needs it.
function ensureKeyId(key) {
  let id = keyIdOf(key);
  if (id >= 0) return id;
  id = nextKeyId;
  try {
    giveKeyId(key, id);
  } catch {
    return -1;
  }
  nextKeyId = id + 1;
  return id;
}

function tableLookup(table, key) {
  const id = keyIdOf(key);
  if (id < 0) return kMissing;
  return tableGet(table, id);
}

// The value of the key whose id is `id` (>= 0) in `table`, or kMissing.
function tableGet(table, id) {
  let shift = table.shift;
  if ((id >>> shift) >= kWidth) return kMissing;
  let array = table.root;
  while (shift > 0) {
    array = array[(id >>> shift) & kMask];
    if (array === undefined) return kMissing;
    shift -= kBits;
  }
  return array[id & kMask];
}

function newSlots(edit, fill) {
  const array = newList(kWidth + 1);
  for (let i = 0; i < kWidth; i++) array[i] = fill;
  array[kWidth] = edit;
  return array;
}

function copySlots(array, edit) {
  const copy = newList(kWidth + 1);
  for (let i = 0; i < kWidth; i++) copy[i] = array[i];
  copy[kWidth] = edit;
  return copy;
}

// Whether `node` has an index of this layer.
function isIndexed(node) {
  const table = node.table;
  return table !== undefined && table.layer === kLayer;
}

// Gives `node`, whose run of unindexed nodes has reached kSpan, the index
// of its frame (a cache: the nodes stay, and say the same): the first index below it plus the nodes above that one,
// the oldest first so that the nearest wins. Leaves the node unindexed if a
// key cannot have an id.
function indexNode(node) {
  const entries = newList(node.span);
  let count = 0;
  let below = node;
  for (; below !== undefined && below.table === undefined; below = below.next) {
    entries[count++] = below;
  }
  // Another layer's index below: this layer keeps walking these nodes.
  if (below !== undefined && below.table.layer !== kLayer) return;
  const ids = newList(count);
  let maxId = 0;
  for (let i = 0; i < count; i++) {
    const id = ensureKeyId(entries[i].key);
    if (id < 0) return;
    ids[i] = id;
    if (id > maxId) maxId = id;
  }
  const edit = {__proto__: null};
  let root;
  let shift;
  if (below === undefined) {
    root = undefined;
    shift = 0;
  } else {
    root = below.table.root;
    shift = below.table.shift;
  }
  if (root === undefined) root = newSlots(edit, kMissing);
  while ((maxId >>> shift) >= kWidth) {
    const parent = newSlots(edit, undefined);
    parent[0] = root;
    root = parent;
    shift += kBits;
  }
  if (root[kWidth] !== edit) root = copySlots(root, edit);
  for (let i = count - 1; i >= 0; i--) {
    const id = ids[i];
    let array = root;
    for (let s = shift; s > 0; s -= kBits) {
      const slot = (id >>> s) & kMask;
      let child = array[slot];
      if (child === undefined) {
        child = newSlots(edit, s === kBits ? kMissing : undefined);
      } else if (child[kWidth] !== edit) {
        child = copySlots(child, edit);
      }
      array[slot] = child;
      array = child;
    }
    const entry = entries[i];
    array[id & kMask] = isRemoval(entry) ? kMissing : entry.value;
  }
  // A plain literal, like the nodes: a `__proto__: null` literal would be a
  // dictionary-mode object, whose every read is a generic LoadIC call (over
  // 50 ns each, three of them per lookup that reaches an index).
  const table = {root, shift, layer: kLayer};
  node.table = table;
  // Its own index is the nearest (see newNode).
  node.base = table;
  node.mask = 0;
}

// Sets node.next, and the span that follows from it. A `next` whose own
// run of unindexed nodes has reached kSpan gets its index now (it is the
// frame that outlives this node, and every node made on it shares it).
function linkNode(node, next) {
  node.next = next;
  if (next.table === undefined && next.span >= kSpan) indexNode(next);
  const table = next.table;
  node.span = table === undefined ? next.span + 1 : 1;
  // The skip to the index below (see newNode). Frames without an index pay
  // one load here, and no id is looked up.
  let base;
  let mask;
  if (table === undefined) {
    // Only this layer's: its masks hold this layer's ids (another layer's
    // node passes on its own layer's index, which this layer cannot use).
    base = next.base;
    if (base !== undefined && base.layer !== kLayer) return;
    mask = next.mask;
  } else if (table.layer === kLayer) {
    base = table;
    mask = 0;
  }
  if (base !== undefined) {
    const id = keyIdOf(node.key);
    if (id < 0) return;
    node.base = base;
    node.mask = mask | keyBit(id);
  }
}

// The bit of a key id in a node's mask: bits 0 to 29, so that every mask is
// a small integer (a field of a node that never needs a heap number).
function keyBit(id) {
  return 1 << (id % 30);
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

// (Stamp is defined above, with the keys' ids.)

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
  linkTail,
  tableLookup,
  tableGet,
  keyIdOf,
  keyBit,
  ensureKeyId,
  ROOT,
  kMissing,
  kLayer,
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
