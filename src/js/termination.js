// Copyright 2026 the asyncctx authors. All rights reserved.
//
// After TerminateExecution. Runtime::RunMicrotasks() calls
// resetAfterTermination when JavaScript was terminated since the last
// checkpoint: the `finally` blocks and `after` hooks that would have undone
// the modules' bookkeeping never ran. Each module that keeps such state
// resets its own; this is the one place that calls them all. (C++ empties
// the execution stack itself.)

'use strict';

const {
  resetAfterTermination: resetExecutionStack,
} = require('internal/execution_stack');
const {
  resetAfterTermination: resetHooks,
} = require('internal/hooks');
const {
  resetAfterTermination: resetPromiseHooks,
} = require('internal/promise_hooks');
const {
  resetAfterTermination: resetThenableRepair,
} = require('internal/thenable_repair');
const {
  resetAfterTermination: resetQueueMicrotask,
} = require('internal/queue_microtask');

function resetAfterTermination() {
  resetThenableRepair();
  resetPromiseHooks();
  resetHooks();
  resetExecutionStack();
  resetQueueMicrotask();
}

module.exports = {
  __proto__: null,
  resetAfterTermination,
};
