// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The JavaScript layer of asyncctx, compiled once per context by
// Runtime::Install() and called with the native binding.
//
// Why JavaScript: entering JavaScript from C++ is the expensive step in V8
// (a native `run` calling back through Function::Call costs ~3x a JavaScript
// `run` over native frame accessors), so everything that calls user code
// synchronously lives here, over a few native primitives that own the state:
//
//   binding.getFrame() / binding.setFrame(f)   V8's continuation data (CPED)
//   binding.swapFrame(f)                       sets f, returns the previous
//   binding.fields     Float64Array shared by every context of the isolate:
//                      current ids, id counter, stack depth
//   binding.stack      Float64Array: saved (execution, trigger) id pairs
//   binding.hookFields Float64Array of this context: hook counts by kind
//   binding.enqueueMicrotask(fn)   Isolate::EnqueueMicrotask
//
// A frame is an immutable array [key0, value0, key1, value1, ...]; undefined
// is the root frame. Frames are never mutated after they are published.
//
// Nothing here is reachable from user code except the installed API.

'use strict';

(function(binding) {
  const {
    getFrame,
    setFrame,
    swapFrame,
    enqueueMicrotask,
    enqueueOrGetFrame,
    fields,
    stack,
    hookFields,
    updatePromiseHooks,
    fatalStackCorruption,
    reportHookError,
    reportUncaught,
    queueDestroy,
  } = binding;

  const ArrayIsArray = Array.isArray;
  const NumberIsSafeInteger = Number.isSafeInteger;
  // Builtins are captured when the layer is compiled, as Node.js's
  // primordials are: user code that replaces Array.prototype.slice or
  // Array.prototype[Symbol.iterator] later must not change how this layer
  // behaves. Hot paths avoid builtin methods altogether (plain loops and
  // index stores); cold paths call the captured originals.
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectFreeze = Object.freeze;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const uncurryThis = (fn) => (self, ...args) => ReflectApply(fn, self, args);
  const StringPrototypeSlice = uncurryThis(String.prototype.slice);
  const StringPrototypeSplit = uncurryThis(String.prototype.split);
  const StringPrototypeIncludes = uncurryThis(String.prototype.includes);
  const SymbolPrototypeToString = uncurryThis(Symbol.prototype.toString);
  const SetCtor = Set;
  const SetPrototypeAdd = uncurryThis(Set.prototype.add);
  const SetPrototypeDelete = uncurryThis(Set.prototype.delete);
  const FinalizationRegistryPrototypeRegister =
      uncurryThis(FinalizationRegistry.prototype.register);
  const ReflectApply = Reflect.apply;
  const SymbolFor = Symbol;
  const FinalizationRegistryCtor = FinalizationRegistry;

  // Indices into `fields` (kept in sync with src/execution_stack.h).
  const kExecutionAsyncId = 0;
  const kTriggerAsyncId = 1;
  const kAsyncIdCounter = 2;
  const kDefaultTriggerAsyncId = 3;
  const kStackCapacity = 4;
  // stackDepth[0]: the number of entries on the execution stack.
  const stackDepth = binding.depth;

  // Indices into `hookFields` (kept in sync with src/runtime_impl.h).
  const kInit = 0;
  const kBefore = 1;
  const kAfter = 2;
  const kDestroy = 3;
  const kPromiseResolve = 4;
  const kTotals = 5;
  const kTrackedResources = 6;
  const kThenableRepair = 7;
  const kRepairActive = 8;
  const kCheckpointGeneration = 9;

  // ---------------------------------------------------------------------------
  // Errors with Node.js's codes and wording.

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

  // Node's error shape: `code` as an own property, and `[code]` in the
  // stack's first line and in toString() (`TypeError [ERR_X]: message`).
  function makeError(Ctor, code, message) {
    const err = new Ctor(message);
    const name = err.name;
    err.name = `${name} [${code}]`;
    // V8 formats the stack lazily, with the name of this moment; our own
    // frames are left out, so the stack starts at the caller's call.
    const stack = err.stack;
    if (typeof stack === 'string') {
      const lines = StringPrototypeSplit(stack, '\n');
      let kept = '';
      for (let i = 0; i < lines.length; i++) {
        if (StringPrototypeIncludes(lines[i], 'asyncctx:internal/')) continue;
        kept = kept === '' ? lines[i] : `${kept}\n${lines[i]}`;
      }
      err.stack = kept;
    }
    delete err.name;
    ObjectDefineProperty(err, 'code', {
      value: code,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    ObjectDefineProperty(err, 'toString', {
      value() {
        return `${name} [${code}]: ${this.message}`;
      },
      enumerable: false,
      configurable: true,
      writable: true,
    });
    return err;
  }

  function invalidArgType(name, expected, value) {
    return makeError(
        TypeError, 'ERR_INVALID_ARG_TYPE',
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

  // ---------------------------------------------------------------------------
  // Frames.

  function frameWith(frame, key, value) {
    if (frame === undefined) return [key, value];
    const n = frame.length;
    for (let i = 0; i < n; i += 2) {
      if (frame[i] === key) {
        const copy = new Array(n);
        for (let j = 0; j < n; j++) copy[j] = frame[j];
        copy[i + 1] = value;
        return copy;
      }
    }
    const copy = new Array(n + 2);
    for (let i = 0; i < n; i++) copy[i] = frame[i];
    copy[n] = key;
    copy[n + 1] = value;
    return copy;
  }

  function frameWithout(frame, key) {
    if (frame === undefined) return undefined;
    const n = frame.length;
    for (let i = 0; i < n; i += 2) {
      if (frame[i] === key) {
        if (n === 2) return undefined;
        const copy = new Array(n - 2);
        for (let j = 0, k = 0; j < n; j++) {
          if (j !== i && j !== i + 1) copy[k++] = frame[j];
        }
        return copy;
      }
    }
    return frame;
  }

  // ---------------------------------------------------------------------------
  // Execution stack (the storage is native memory shared with C++).

  // executionAsyncResource() for each stack entry; index = depth - 1.
  const resources = [];
  // What executionAsyncResource() returns at the top level.
  const topLevelResource = ObjectFreeze({__proto__: null});

  function pushAsyncContext(asyncId, triggerAsyncId, resource) {
    const depth = stackDepth[0];
    if (depth >= fields[kStackCapacity]) {
      throw new RangeError('Maximum async context stack size exceeded');
    }
    const offset = depth * 2;
    stack[offset] = fields[kExecutionAsyncId];
    stack[offset + 1] = fields[kTriggerAsyncId];
    stackDepth[0] = depth + 1;
    fields[kExecutionAsyncId] = asyncId;
    fields[kTriggerAsyncId] = triggerAsyncId;
    resources[depth] = resource;
  }

  function popAsyncContext(asyncId) {
    const depth = stackDepth[0];
    if (depth === 0) return false;
    if (fields[kExecutionAsyncId] !== asyncId) {
      // Never returns: this is stack corruption.
      fatalStackCorruption(fields[kExecutionAsyncId], asyncId);
    }
    const offset = (depth - 1) * 2;
    fields[kExecutionAsyncId] = stack[offset];
    fields[kTriggerAsyncId] = stack[offset + 1];
    stackDepth[0] = depth - 1;
    resources[depth - 1] = undefined;
    return depth > 1;
  }

  function newAsyncId() {
    return ++fields[kAsyncIdCounter];
  }

  function executionAsyncId() {
    return fields[kExecutionAsyncId];
  }

  function triggerAsyncId() {
    return fields[kTriggerAsyncId];
  }

  function defaultTriggerAsyncId() {
    const id = fields[kDefaultTriggerAsyncId];
    return id < 0 ? fields[kExecutionAsyncId] : id;
  }

  function executionAsyncResource() {
    const depth = stackDepth[0];
    if (depth === 0) return topLevelResource;
    const resource = resources[depth - 1];
    if (resource !== undefined) return resource;
    // Entries pushed by a host CallbackScope are looked up in C++.
    const hostResource = binding.hostResourceAt(depth - 1);
    return hostResource === undefined ? topLevelResource : hostResource;
  }

  // ---------------------------------------------------------------------------
  // Hooks (createHook). Hook lists are copied on write, so enabling or
  // disabling a hook while hooks run takes effect at the next event, as
  // Node.js documents.

  // One list per kind, holding the enabled hooks that have that callback.
  // Lists are replaced, never mutated, while hooks may be running.
  let initHooks = [];
  let beforeHooks = [];
  let afterHooks = [];
  let destroyHooks = [];
  let promiseResolveHooks = [];
  let callInitHooks;
  let callBeforeHooks;
  let callAfterHooks;
  let callDestroyHooks;
  let callPromiseResolveHooks;

  class AsyncHook {
    // Private fields keep every hook the same shape, and `hook.#init(...)`
    // is a plain method call that TurboFan inlines, with `this` the hook, as
    // in Node.js.
    #init;
    #before;
    #after;
    #destroy;
    #promiseResolve;
    #enabled = false;

    constructor(callbacks) {
      this.#init = hookCallback(callbacks, 'init');
      this.#before = hookCallback(callbacks, 'before');
      this.#after = hookCallback(callbacks, 'after');
      this.#destroy = hookCallback(callbacks, 'destroy');
      this.#promiseResolve = hookCallback(callbacks, 'promiseResolve');
    }

    enable() {
      if (this.#enabled) return this;
      this.#update(1);
      return this;
    }

    disable() {
      if (!this.#enabled) return this;
      this.#update(-1);
      return this;
    }

    // All-or-nothing: the new lists are built first (where a stack overflow
    // or an allocation failure can still throw), then committed with plain
    // assignments only, so the lists and the counts always agree.
    #update(delta) {
      const hasInit = this.#init !== undefined;
      const hasBefore = this.#before !== undefined;
      const hasAfter = this.#after !== undefined;
      const hasDestroy = this.#destroy !== undefined;
      const hasResolve = this.#promiseResolve !== undefined;
      const nextInit = hasInit ? withHook(initHooks, this, delta) : initHooks;
      const nextBefore =
          hasBefore ? withHook(beforeHooks, this, delta) : beforeHooks;
      const nextAfter =
          hasAfter ? withHook(afterHooks, this, delta) : afterHooks;
      const nextDestroy =
          hasDestroy ? withHook(destroyHooks, this, delta) : destroyHooks;
      const nextResolve = hasResolve ?
          withHook(promiseResolveHooks, this, delta) :
          promiseResolveHooks;
      initHooks = nextInit;
      beforeHooks = nextBefore;
      afterHooks = nextAfter;
      destroyHooks = nextDestroy;
      promiseResolveHooks = nextResolve;
      if (hasInit) hookFields[kInit] += delta;
      if (hasBefore) hookFields[kBefore] += delta;
      if (hasAfter) hookFields[kAfter] += delta;
      if (hasDestroy) hookFields[kDestroy] += delta;
      if (hasResolve) hookFields[kPromiseResolve] += delta;
      hookFields[kTotals] += delta;
      this.#enabled = delta > 0;
      refreshPromiseHooks();
    }

    // The emitters live in a static block: they read the private callbacks,
    // and they are not reachable from user code (not even through
    // hook.constructor).
    static {
      callInitHooks = function(asyncId, type, triggerAsyncId, resource) {
        const hooks = initHooks;
        for (let i = 0; i < hooks.length; i++) {
          try {
            hooks[i].#init(asyncId, type, triggerAsyncId, resource);
          } catch (err) {
            reportHookError('init', err);
          }
        }
      };

      callBeforeHooks = function(asyncId) {
        const hooks = beforeHooks;
        for (let i = 0; i < hooks.length; i++) {
          try {
            hooks[i].#before(asyncId);
          } catch (err) {
            reportHookError('before', err);
          }
        }
      };

      callAfterHooks = function(asyncId) {
        const hooks = afterHooks;
        for (let i = 0; i < hooks.length; i++) {
          try {
            hooks[i].#after(asyncId);
          } catch (err) {
            reportHookError('after', err);
          }
        }
      };

      callDestroyHooks = function(asyncId) {
        const hooks = destroyHooks;
        for (let i = 0; i < hooks.length; i++) {
          try {
            hooks[i].#destroy(asyncId);
          } catch (err) {
            reportHookError('destroy', err);
          }
        }
      };

      callPromiseResolveHooks = function(asyncId) {
        const hooks = promiseResolveHooks;
        for (let i = 0; i < hooks.length; i++) {
          try {
            hooks[i].#promiseResolve(asyncId);
          } catch (err) {
            reportHookError('promiseResolve', err);
          }
        }
      };
    }
  }

  // A copy of `list` with `hook` added (delta > 0) or removed.
  function withHook(list, hook, delta) {
    const copy = [];
    let k = 0;
    for (let i = 0; i < list.length; i++) {
      if (list[i] !== hook) copy[k++] = list[i];
    }
    if (delta > 0) copy[k] = hook;
    return copy;
  }

  function hookCallback(callbacks, kind) {
    const fn = callbacks[kind];
    if (fn !== undefined && typeof fn !== 'function') {
      throw makeError(TypeError, 'ERR_ASYNC_CALLBACK',
                      `hook.${kind} must be a function`);
    }
    return fn;
  }

  function emitInit(asyncId, type, triggerAsyncId, resource) {
    if (hookFields[kInit] > 0) {
      callInitHooks(asyncId, type, triggerAsyncId, resource);
    }
  }

  function emitBefore(asyncId) {
    if (hookFields[kBefore] > 0) callBeforeHooks(asyncId);
  }

  function emitAfter(asyncId) {
    if (hookFields[kAfter] > 0) callAfterHooks(asyncId);
  }

  function emitDestroyNow(asyncId) {
    if (hookFields[kDestroy] > 0) callDestroyHooks(asyncId);
  }

  function emitPromiseResolve(asyncId) {
    if (hookFields[kPromiseResolve] > 0) {
      callPromiseResolveHooks(asyncId);
    }
  }

  // Called by C++ with a batch of ids (from the posted destroy task).
  function emitDestroyBatch(ids) {
    for (let i = 0; i < ids.length; i++) emitDestroyNow(ids[i]);
  }

  function createHook(callbacks) {
    if (callbacks === null || typeof callbacks !== 'object') {
      throw invalidArgType('options', 'object', callbacks);
    }
    return new AsyncHook(callbacks);
  }

  // ---------------------------------------------------------------------------
  // Promise hooks: PROMISE resources for createHook, and the thenable repair
  // (V8 10.2 runs thenable jobs in whatever frame is current; the promise the
  // job resolves was created in the awaiting frame, so record the frame at
  // init and enter it around the job).

  const kPromiseFrame = SymbolFor('asyncctx.frame');
  const kPromiseAsyncId = SymbolFor('asyncctx.asyncId');
  const kPromiseTriggerId = SymbolFor('asyncctx.triggerAsyncId');
  // Frames saved by `before`, restored by `after` (jobs do not nest, but
  // a host may run a checkpoint inside a job).
  // A stack with its own top index: shrinking an array through `length` is a
  // slow runtime call in V8, and pop() is a replaceable builtin.
  const savedFrames = [];
  let savedTop = 0;
  const kNoSwap = {};

  function promiseInitHook(promise, parent) {
    // Recorded whenever the hooks are installed (for the repair or for hook
    // events): `before` needs it to tell a job captured in a non-root frame,
    // which V8 has already entered, from a root job that must start at the
    // root.
    const frame = getFrame();
    if (frame !== undefined) promise[kPromiseFrame] = frame;
    if (hookFields[kTotals] > 0) {
      const asyncId = newAsyncId();
      const parentId = parent !== undefined ? parent[kPromiseAsyncId] : undefined;
      const trigger =
          parentId !== undefined ? parentId : defaultTriggerAsyncId();
      promise[kPromiseAsyncId] = asyncId;
      promise[kPromiseTriggerId] = trigger;
      emitInit(asyncId, 'PROMISE', trigger, promise);
    }
  }

  // Promise jobs between V8's `before` and `after` hooks right now. V8 calls
  // `after` only if the hooks are still installed when the job ends, so they
  // are not removed while a job runs: its id would stay on the execution
  // stack (and its saved frame in savedFrames). Node defers the same way.
  let promiseJobsRunning = 0;
  let promiseHooksRemovalQueued = false;

  // Set by enterWith. V8 10.2 neither sets nor resets the continuation data
  // around a job whose captured frame is the root, so a frame entered with
  // enterWith inside a job would leak into every later root-frame job of the
  // checkpoint. Every job must start (and end) at the root frame unless V8
  // or the repair enters the job's own frame: when the frame is dirty, the
  // next promise hook puts the root back.
  let frameDirty = false;

  function resetDirtyFrame() {
    frameDirty = false;
    setFrame(undefined);
  }

  function promiseBeforeHook(promise) {
    promiseJobsRunning++;
    const frame = promise[kPromiseFrame];
    if (frame !== undefined) {
      // V8 has entered this frame already for a reaction job (and will reset
      // it after): nothing to do. A thenable job, which V8 10.2 runs in
      // whatever frame is current, needs it entered here and restored after.
      const current = getFrame();
      if (current !== frame) {
        savedFrames[savedTop++] = current;
        setFrame(frame);
      } else {
        savedFrames[savedTop++] = kNoSwap;
      }
      frameDirty = false;
    } else {
      // A job captured at the root: V8 enters nothing, so a frame left by an
      // enterWith in an earlier job is reset.
      if (frameDirty) resetDirtyFrame();
      savedFrames[savedTop++] = kNoSwap;
    }
    const asyncId = promise[kPromiseAsyncId];
    if (asyncId !== undefined && hookFields[kTotals] > 0) {
      pushAsyncContext(asyncId, promise[kPromiseTriggerId], promise);
      emitBefore(asyncId);
    }
  }

  function promiseAfterHook(promise) {
    // Zero when the hooks were installed during this job (no `before`).
    if (promiseJobsRunning > 0) promiseJobsRunning--;
    const asyncId = promise[kPromiseAsyncId];
    if (asyncId !== undefined && fields[kExecutionAsyncId] === asyncId) {
      emitAfter(asyncId);
      popAsyncContext(asyncId);
    }
    if (savedTop > 0) {
      const frame = savedFrames[--savedTop];
      savedFrames[savedTop] = undefined;
      if (frame !== kNoSwap) setFrame(frame);
    }
    if (frameDirty) resetDirtyFrame();
  }

  function promiseResolveHook(promise) {
    const asyncId = promise[kPromiseAsyncId];
    if (asyncId !== undefined) emitPromiseResolve(asyncId);
  }

  // Installs or removes V8's promise hooks for this context, depending on
  // whether a hook wants promise events or the thenable repair is active.
  function refreshPromiseHooks() {
    const wantRepair = hookFields[kRepairActive] > 0;
    const wantEvents = hookFields[kInit] + hookFields[kBefore] +
        hookFields[kAfter] + hookFields[kPromiseResolve] > 0;
    if (wantRepair || wantEvents) {
      updatePromiseHooks(
          promiseInitHook, promiseBeforeHook, promiseAfterHook,
          wantEvents && hookFields[kPromiseResolve] > 0 ? promiseResolveHook :
                                                          undefined);
    } else if (promiseJobsRunning > 0) {
      if (!promiseHooksRemovalQueued) {
        promiseHooksRemovalQueued = true;
        enqueueMicrotask(removePromiseHooksLater);
      }
    } else {
      updatePromiseHooks();
    }
  }

  // A microtask of its own, so no promise job is running now; a count left
  // by a job that never reached `after` (TerminateExecution) is stale, and
  // must not re-queue this forever.
  function removePromiseHooksLater() {
    promiseHooksRemovalQueued = false;
    promiseJobsRunning = 0;
    refreshPromiseHooks();
  }

  // Enters a frame that was just created (by run or enterWith). The first
  // non-root frame of a context turns the thenable repair on there; frames
  // captured earlier (snapshots, resources, wrappers) were current once, so
  // entering them again needs no check.
  function enterNewFrame(frame) {
    if (hookFields[kRepairActive] === 0 && hookFields[kThenableRepair] !== 0) {
      hookFields[kRepairActive] = 1;
      refreshPromiseHooks();
    }
    setFrame(frame);
  }

  // ---------------------------------------------------------------------------
  // Destroy tracking. GC-driven destroy is registered only when a destroy
  // hook is enabled at construction; V8 runs the registry's cleanup from a
  // task, outside of GC.

  // Ids of tracked resources that emitDestroy() already reported: their GC
  // cleanup is skipped. (Registering with an unregister token would let
  // emitDestroy() unregister instead, but a token makes every registration
  // several times more expensive in V8 10.2.)
  const destroyedByHand = new SetCtor();
  const destroyRegistry = new FinalizationRegistryCtor((asyncId) => {
    hookFields[kTrackedResources]--;
    if (SetPrototypeDelete(destroyedByHand, asyncId)) return;
    emitDestroyNow(asyncId);
  });

  // ---------------------------------------------------------------------------
  // AsyncResource.

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
        throw makeError(RangeError, 'ERR_INVALID_ASYNC_ID',
                        `Invalid triggerAsyncId value: ${
                            typeof triggerAsyncId === 'symbol' ?
                                SymbolPrototypeToString(triggerAsyncId) :
                                triggerAsyncId}`);
      }
      this.#frame = getFrame();
      const asyncId = ++fields[kAsyncIdCounter];
      this.#asyncId = asyncId;
      this.#triggerAsyncId = triggerAsyncId;
      if (hookFields[kTotals] > 0) {
        if (hookFields[kInit] > 0) {
          if (type.length === 0) {
            throw makeError(TypeError, 'ERR_ASYNC_TYPE',
                            `Invalid name for async "type": ${type}`);
          }
          emitInit(asyncId, type, triggerAsyncId, this);
        }
        if (hookFields[kDestroy] > 0 && !requireManualDestroy) {
          this.#tracked = true;
          hookFields[kTrackedResources]++;
          FinalizationRegistryPrototypeRegister(destroyRegistry, this, asyncId);
        }
      }
    }

    runInAsyncScope(fn, thisArg, ...args) {
      if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
      return this.#runInScope(fn, thisArg, args);
    }

    #runInScope(fn, thisArg, args) {
      const asyncId = this.#asyncId;
      const previousFrame = getFrame();
      pushAsyncContext(asyncId, this.#triggerAsyncId, this);
      try {
        setFrame(this.#frame);
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
          setFrame(previousFrame);
        }
      }
    }

    emitDestroy() {
      if (!this.#destroyed) {
        this.#destroyed = true;
        if (this.#tracked) {
          this.#tracked = false;
          SetPrototypeAdd(destroyedByHand, this.#asyncId);
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

    bind(fn, thisArg) {
      validateFunction(fn, 'fn');
      const resource = this;
      let bound;
      if (thisArg === undefined) {
        bound = function(...args) {
          return resource.#runInScope(fn, this, args);
        };
      } else {
        bound = function(...args) {
          return resource.#runInScope(fn, thisArg, args);
        };
      }
      ObjectDefineProperty(bound, 'length', {
        value: fn.length,
        configurable: true,
        enumerable: false,
        writable: false,
      });
      ObjectDefineProperty(bound, 'asyncResource', {
        value: this,
        configurable: true,
        enumerable: true,
        writable: true,
      });
      return bound;
    }

    static bind(fn, type, thisArg) {
      validateFunction(fn, 'fn');
      type = type || fn.name || 'bound-anonymous-fn';
      return new AsyncResource(type).bind(fn, thisArg);
    }
  }

  // ---------------------------------------------------------------------------
  // AsyncLocalStorage. The instance itself is its key in frames.

  class AsyncLocalStorage {
    #enabled = true;
    #defaultValue;
    #name;

    constructor(options) {
      validateObjectOrUndefined(options, 'options');
      this.#defaultValue = options === undefined ? undefined : options.defaultValue;
      const name = options === undefined ? undefined : options.name;
      this.#name = name === undefined ? '' : `${name}`;
    }

    get name() {
      return this.#name;
    }

    static bind(fn) {
      return AsyncResource.bind(fn);
    }

    static snapshot() {
      return AsyncResource.bind(runWithArgs, 'AsyncLocalStorageSnapshot');
    }

    disable() {
      this.#enabled = false;
    }

    getStore() {
      if (!this.#enabled) return undefined;
      const frame = getFrame();
      if (frame !== undefined) {
        const n = frame.length;
        for (let i = 0; i < n; i += 2) {
          if (frame[i] === this) return frame[i + 1];
        }
      }
      return this.#defaultValue;
    }

    enterWith(store) {
      this.#enabled = true;
      enterNewFrame(frameWith(getFrame(), this, store));
      frameDirty = true;
    }

    run(store, callback, ...args) {
      if (typeof callback !== 'function') {
        throw invalidArgType('callback', 'function', callback);
      }
      this.#enabled = true;
      const previous = getFrame();
      enterNewFrame(frameWith(previous, this, store));
      try {
        return ReflectApply(callback, undefined, args);
      } finally {
        setFrame(previous);
      }
    }

    exit(callback, ...args) {
      if (typeof callback !== 'function') {
        throw invalidArgType('callback', 'function', callback);
      }
      const previous = swapFrame(frameWithout(getFrame(), this));
      try {
        return ReflectApply(callback, undefined, args);
      } finally {
        setFrame(previous);
      }
    }
  }

  function runWithArgs(fn, ...args) {
    return ReflectApply(fn, undefined, args);
  }

  // ---------------------------------------------------------------------------
  // TC39 AsyncContext.

  class Variable {
    #name;
    #defaultValue;

    constructor(options) {
      validateObjectOrUndefined(options, 'options');
      let name = '';
      let defaultValue;
      if (options !== undefined) {
        if (options.name !== undefined) name = `${options.name}`;
        defaultValue = options.defaultValue;
      }
      this.#name = name;
      this.#defaultValue = defaultValue;
    }

    get name() {
      return this.#name;
    }

    get() {
      const frame = getFrame();
      if (frame !== undefined) {
        const n = frame.length;
        for (let i = 0; i < n; i += 2) {
          if (frame[i] === this) return frame[i + 1];
        }
      }
      return this.#defaultValue;
    }

    run(value, fn, ...args) {
      if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
      const previous = getFrame();
      enterNewFrame(frameWith(previous, this, value));
      try {
        return ReflectApply(fn, undefined, args);
      } finally {
        setFrame(previous);
      }
    }
  }

  class Snapshot {
    #frame = getFrame();

    run(fn, ...args) {
      if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
      const previous = swapFrame(this.#frame);
      try {
        return ReflectApply(fn, undefined, args);
      } finally {
        setFrame(previous);
      }
    }

    static wrap(fn) {
      if (typeof fn !== 'function') throw invalidArgType('fn', 'function', fn);
      const frame = getFrame();
      function wrapped(...args) {
        const previous = swapFrame(frame);
        try {
          return ReflectApply(fn, this, args);
        } finally {
          setFrame(previous);
        }
      }
      ObjectDefineProperty(wrapped, 'name', {
        value: `wrapped ${fn.name}`,
        configurable: true,
      });
      ObjectDefineProperty(wrapped, 'length', {
        value: fn.length,
        configurable: true,
      });
      return wrapped;
    }
  }

  ObjectDefineProperty(Variable.prototype, Symbol.toStringTag, {
    value: 'AsyncContext.Variable',
    configurable: true,
  });
  ObjectDefineProperty(Snapshot.prototype, Symbol.toStringTag, {
    value: 'AsyncContext.Snapshot',
    configurable: true,
  });

  const AsyncContext = ObjectFreeze({
    __proto__: null,
    Variable,
    Snapshot,
    [Symbol.toStringTag]: 'AsyncContext',
  });

  // ---------------------------------------------------------------------------
  // queueMicrotask: the bare V8 microtask when the frame is the root and no
  // hook is enabled; otherwise a wrapper that enters the caller's frame (and
  // emits Microtask hook events) and restores the frame afterwards.

  function queueMicrotask(callback) {
    if (typeof callback !== 'function') {
      throw invalidArgType('callback', 'function', callback);
    }
    if (hookFields[kTotals] !== 0) {
      queueMicrotaskWithHooks(callback, getFrame());
      return;
    }
    // One native call: at the root frame it queues the bare function (the
    // fast path, as cheap as V8's own); otherwise it queues the shared
    // runner and returns the frame, which is kept here with the callback.
    const frame = enqueueOrGetFrame(callback, runQueuedMicrotask);
    if (frame === undefined) return;
    if (queuedGeneration !== hookFields[kCheckpointGeneration]) {
      // A checkpoint completed since the last push, so every runner queued
      // before it has run or (after TerminateExecution) was dropped by V8:
      // anything left here is stale.
      queuedGeneration = hookFields[kCheckpointGeneration];
      queuedCallbacks = [];
      queuedFrames = [];
      queuedHead = 0;
    }
    queuedCallbacks[queuedCallbacks.length] = callback;
    queuedFrames[queuedFrames.length] = frame;
  }

  // Callbacks queued in a non-root frame, in the order of their runners in
  // V8's queue (no closure per microtask).
  let queuedCallbacks = [];
  let queuedFrames = [];
  let queuedHead = 0;
  let queuedGeneration = -1;

  function runQueuedMicrotask() {
    // A runner without a callback is left by a queueMicrotask call that
    // overflowed the stack after V8 queued the runner (it threw to its
    // caller); each callback still runs in its own frame.
    if (queuedHead >= queuedCallbacks.length) return;
    const index = queuedHead++;
    const callback = queuedCallbacks[index];
    const frame = queuedFrames[index];
    queuedCallbacks[index] = undefined;
    queuedFrames[index] = undefined;
    if (queuedHead === queuedCallbacks.length) {
      queuedCallbacks = [];
      queuedFrames = [];
      queuedHead = 0;
    }
    const previous = swapFrame(frame);
    try {
      callback();
    } catch (err) {
      reportUncaught(err);
    } finally {
      setFrame(previous);
    }
  }

  function queueMicrotaskWithHooks(callback, frame) {
    const asyncId = newAsyncId();
    const trigger = defaultTriggerAsyncId();
    const resource = {__proto__: null, callback};
    emitInit(asyncId, 'Microtask', trigger, resource);
    enqueueMicrotask(() => {
      const previous = swapFrame(frame);
      pushAsyncContext(asyncId, trigger, resource);
      try {
        emitBefore(asyncId);
        // As in Node.js: the exception is reported inside the scope, and
        // `after` is still emitted.
        try {
          callback();
        } catch (err) {
          reportUncaught(err);
        }
        emitAfter(asyncId);
      } finally {
        popAsyncContext(asyncId);
        setFrame(previous);
        if (hookFields[kDestroy] > 0) queueDestroy(asyncId);
      }
    });
  }

  // Called by Runtime::RunMicrotasks() when JavaScript was terminated since
  // the last checkpoint: the `finally` blocks and `after` hooks that would
  // have undone the bookkeeping below never ran. (C++ empties the execution
  // stack itself.)
  function resetAfterTermination() {
    for (let i = 0; i < savedTop; i++) savedFrames[i] = undefined;
    savedTop = 0;
    promiseJobsRunning = 0;
    frameDirty = false;
    resources.length = 0;
    queuedCallbacks = [];
    queuedFrames = [];
    queuedHead = 0;
  }

  // ---------------------------------------------------------------------------
  // The async_hooks namespace.

  const asyncHooks = ObjectFreeze({
    __proto__: null,
    createHook,
    executionAsyncId,
    triggerAsyncId,
    executionAsyncResource,
    AsyncLocalStorage,
    AsyncResource,
    asyncWrapProviders: ObjectFreeze({__proto__: null}),
  });

  // Internal entry points for C++ (src/runtime_impl.cc), kept off the
  // installed globals.
  const internals = {
    __proto__: null,
    resources,
    emitInit,
    emitBefore,
    emitAfter,
    emitDestroyBatch,
    refreshPromiseHooks,
    frameWith,
    invalidArgType,
    resetAfterTermination,
    // For the node:async_hooks module (src/node_module.cc).
    asyncHooks,
    // For the C++ error helpers (include/asyncctx/errors.h).
    makeNodeError(kind, code, message) {
      const Ctor = kind === 1 ? TypeError : kind === 2 ? RangeError : Error;
      return makeError(Ctor, code, message);
    },
  };

  return {
    __proto__: null,
    exports: {
      __proto__: null,
      AsyncLocalStorage,
      AsyncResource,
      AsyncContext,
      queueMicrotask,
      asyncHooks,
    },
    internals,
  };
});
