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
    swapFrame,
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
