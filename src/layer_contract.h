// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The contract between C++ and the JavaScript layer (src/js): every name,
// number and text both sides rely on, stated once. C++ expands the tables
// below; src/js_bindings.cc hands them to the layer (binding.constants,
// binding.strings, binding.layerFunctions), and tools/js2c.py reads this
// file to fail the build when a module imports a name of `binding` or
// `constants` that is not here, or does not export a function listed in
// ASYNCCTX_LAYER_FUNCTIONS.
//
// Each table is one #define ending at an empty line (js2c.py reads it so).

#ifndef ASYNCCTX_SRC_LAYER_CONTRACT_H_
#define ASYNCCTX_SRC_LAYER_CONTRACT_H_

// The integer constants of binding.constants: V(name, C++ value). The
// expressions are evaluated in src/js_bindings.cc.
#define ASYNCCTX_LAYER_CONSTANTS(V)                                 \
  V(kExecutionAsyncId, ExecutionStack::kExecutionAsyncId)           \
  V(kTriggerAsyncId, ExecutionStack::kTriggerAsyncId)               \
  V(kAsyncIdCounter, ExecutionStack::kAsyncIdCounter)               \
  V(kDefaultTriggerAsyncId, ExecutionStack::kDefaultTriggerAsyncId) \
  V(kStackCapacity, ExecutionStack::kStackCapacity)                 \
  V(kInit, kHookInit)                                               \
  V(kBefore, kHookBefore)                                           \
  V(kAfter, kHookAfter)                                             \
  V(kDestroy, kHookDestroy)                                         \
  V(kPromiseResolve, kHookPromiseResolve)                           \
  V(kTotals, kHookTotals)                                           \
  V(kHookCallDepth, kHookCallDepth)                                 \
  V(kRunningHook, kHookRunning)                                     \
  V(kTrackedResources, kContextTrackedResources)                    \
  V(kThenableRepair, kContextThenableRepair)                        \
  V(kRepairActive, kContextRepairActive)                            \
  V(kQueueCheckpoints, kContextQueueCheckpoints)                    \
  V(kCheckpointGeneration, ExecutionStack::kCheckpointGeneration)   \
  V(kHookCallsOpen, ExecutionStack::kHookCallsOpen)                 \
  V(kHostCheckpoints, kContextHostCheckpoints)                      \
  V(kMarkedCheckpoint, kContextMarkedCheckpoint)                    \
  V(kErrorTypeError, static_cast<int>(ErrorType::kError))           \
  V(kErrorTypeTypeError, static_cast<int>(ErrorType::kTypeError))   \
  V(kErrorTypeRangeError, static_cast<int>(ErrorType::kRangeError)) \
  V(kV8PropagatesThenables, compat::kV8PropagatesThenables ? 1 : 0) \
  V(kAttributeReadOnly, v8::ReadOnly)                               \
  V(kAttributeDontEnum, v8::DontEnum)                               \
  V(kAttributeDontDelete, v8::DontDelete)

// The strings of binding.strings: V(name, text).
#define ASYNCCTX_LAYER_STRINGS(V)                \
  V(kScriptPrefix, ASYNCCTX_LAYER_SCRIPT_PREFIX) \
  V(kRuntimeDestroyed, ASYNCCTX_RUNTIME_DESTROYED_MESSAGE)

// The native functions of the binding object: V(name, callback in
// src/js_bindings.cc, length).
#define ASYNCCTX_BINDING_FUNCTIONS(V)              \
  V(getFrame, GetFrame, 0)                         \
  V(setFrame, SetFrame, 1)                         \
  V(restoreFrame, SetFrame, 1)                     \
  V(swapFrame, SwapFrame, 1)                       \
  V(enqueueMicrotask, EnqueueMicrotask, 1)         \
  V(enqueueOrGetFrame, EnqueueOrGetFrame, 3)       \
  V(updatePromiseHooks, UpdatePromiseHooks, 4)     \
  V(fatalStackCorruption, FatalStackCorruption, 2) \
  V(reportHookError, ReportHookErrorBinding, 2)    \
  V(reportUncaught, ReportUncaughtBinding, 1)      \
  V(queueDestroy, QueueDestroyBinding, 1)          \
  V(trackDestroy, TrackDestroy, 2)                 \
  V(markDestroyedByHand, MarkDestroyedByHand, 1)   \
  V(hostResourceAt, HostResourceAt, 1)             \
  V(newConstructor, NewConstructorBinding, 3)      \
  V(defineLazyValue, DefineLazyValueBinding, 4)

// The other properties of the binding object (see NewBindingObject):
//   fields         Float64Array shared by every context of the isolate:
//                  current ids, id counter, stack capacity, checkpoint
//                  generation
//   depth          Uint32Array: the execution stack's depth
//   stack          Float64Array: saved (execution, trigger) id pairs
//   hookFields     Float64Array of this context: hook counts by kind
//   contextFields  Float64Array of this context: the runtime's own
//                  per-context fields (tracked resources, repair state,
//                  host checkpoints)
//   constants, strings, layerFunctions   the tables of this file
#define ASYNCCTX_BINDING_VALUES(V) \
  V(fields)                        \
  V(depth)                         \
  V(stack)                         \
  V(hookFields)                    \
  V(contextFields)                 \
  V(constants)                     \
  V(strings)                       \
  V(layerFunctions)

// The layer's functions C++ calls: V(name, module that exports it,
// ContextState member that keeps it). C++ reads each from the layer's
// internals at its first use (ContextState::LayerFunction); the layer fills
// its internals from this table (binding.layerFunctions: name, module,
// name, module, ...), with getters that run the module then.
#define ASYNCCTX_LAYER_FUNCTIONS(V)                                       \
  V(emitInit, "internal/hooks", emit_init)                                \
  V(emitBefore, "internal/hooks", emit_before)                            \
  V(emitAfter, "internal/hooks", emit_after)                              \
  V(emitDestroyBatch, "internal/hooks", emit_destroy_batch)               \
  V(refreshPromiseHooks, "internal/promise_hooks", refresh_promise_hooks) \
  V(frameWith, "internal/frames", frame_with)                             \
  V(frameLookup, "internal/frames", frame_lookup)                         \
  V(invalidArgType, "internal/errors", invalid_arg_type)                  \
  V(makeNodeError, "internal/errors", make_node_error)                    \
  V(resetAfterTermination, "internal/termination", reset_after_termination)

// The prefix of the layer's script name: stacks made for the user leave
// out the lines that carry it (src/js/errors.js).
#define ASYNCCTX_LAYER_SCRIPT_PREFIX "asyncctx:internal/"

// What every entry point throws once the Runtime of its context is gone.
#define ASYNCCTX_RUNTIME_DESTROYED_MESSAGE \
  "asyncctx: the Runtime of this context has been destroyed"

namespace asyncctx {
namespace internal {

// The script name of the JavaScript layer (in stacks and messages).
inline constexpr char kAsyncctxScriptName[] =
    ASYNCCTX_LAYER_SCRIPT_PREFIX "asyncctx.js";

inline constexpr char kRuntimeDestroyedMessage[] =
    ASYNCCTX_RUNTIME_DESTROYED_MESSAGE;

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_LAYER_CONTRACT_H_
