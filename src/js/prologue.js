// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The JavaScript layer of asyncctx, compiled once per context by
// Runtime::Install() and called with the native binding. tools/js2c.py
// joins src/js/*.js into this one function, in the order BUILD.gn lists
// them (primordials first, install last); each file holds one concept.
//
// Why JavaScript: entering JavaScript from C++ is the expensive step in V8
// (a native `run` calling back through Function::Call costs ~3x a JavaScript
// `run` over native frame accessors), so everything that calls user code
// synchronously lives here, over a few native primitives that own the state:
//
//   binding.getFrame() / binding.setFrame(f)   V8's continuation data (CPED)
//   binding.swapFrame(f)                       sets f, returns the previous
//                      (on V8 >= 12 getFrame and setFrame are V8's own
//                      accessors from the extras binding object, and
//                      swapFrame is undefined: see below)
//   binding.restoreFrame(f)  the native setFrame, for restores (below)
//   binding.fields     Float64Array shared by every context of the isolate:
//                      current ids, id counter, stack capacity
//   binding.depth      Uint32Array: the execution stack's depth
//   binding.stack      Float64Array: saved (execution, trigger) id pairs
//   binding.hookFields Float64Array of this context: hook counts by kind
//   binding.contextFields  Float64Array of this context: the runtime's own
//                      per-context fields (tracked resources, repair state,
//                      checkpoint generation)
//   binding.constants  the indices into those arrays, defined in C++
//   binding.enqueueMicrotask(fn)   Isolate::EnqueueMicrotask
//
// Nothing here is reachable from user code except the installed API.

'use strict';

(function(binding) {
  const {
    getFrame,
    setFrame,
    restoreFrame,
    enqueueMicrotask,
    enqueueOrGetFrame,
    fields,
    stack,
    hookFields,
    contextFields,
    constants,
    updatePromiseHooks,
    fatalStackCorruption,
    reportHookError,
    reportUncaught,
    queueDestroy,
  } = binding;
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
  // accessors, which TurboFan compiles to a load and a store) their
  // composition. A stack overflow in it changes nothing.
  const swapFrame = binding.swapFrame !== undefined ? binding.swapFrame :
      (frame) => {
        const previous = getFrame();
        setFrame(frame);
        return previous;
      };
