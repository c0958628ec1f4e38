// Copyright 2026 the asyncctx authors. All rights reserved.
//
// What the layer hands back to Runtime::Install: the exports it installs
// as globals, and the internal entry points C++ calls (kept off the
// globals).

// Called by Runtime::RunMicrotasks() when JavaScript was terminated since
// the last checkpoint: the `finally` blocks and `after` hooks that would
// have undone the bookkeeping below never ran. (C++ empties the execution
// stack itself.)
function resetAfterTermination() {
  for (let i = 0; i < savedTop; i++) savedFrames[i] = undefined;
  savedTop = 0;
  promiseJobsRunning = 0;
  frameDirty = false;
  for (let i = 0; i < resources.length; i++) resources[i] = undefined;
  clearRing();
}

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

const internals = {
  __proto__: null,
  resources,
  rootFrame: ROOT,
  emitInit,
  emitBefore,
  emitAfter,
  emitDestroyBatch,
  refreshPromiseHooks,
  // The frame format's owner is frames.js; src/frame.cc calls these.
  frameWith,
  frameLookup,
  frameMissing: kMissing,
  invalidArgType,
  resetAfterTermination,
  // For the node:async_hooks module (src/node_module.cc).
  asyncHooks,
  // For the C++ error helpers (include/asyncctx/errors.h).
  makeNodeError(kind, code, message) {
    const Ctor = kind === 1 ? TypeErrorCtor :
        kind === 2          ? RangeErrorCtor :
                              ErrorCtor;
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
