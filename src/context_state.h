// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ContextState: what a runtime keeps for each context it was installed
// into, and where the context keeps it (its embedder-data slots).
//
// Ownership: each ContextState is owned by its RuntimeImpl and freed when
// its context is collected (weak callback) or when the runtime is
// destroyed. The context holds the JavaScript layer strongly (embedder
// data); C++ holds it weakly, so nothing here keeps a context alive. Native
// bindings reach their ContextState through a small holder object instead
// (src/js_bindings.h), which the runtime clears on destruction.

#ifndef ASYNCCTX_SRC_CONTEXT_STATE_H_
#define ASYNCCTX_SRC_CONTEXT_STATE_H_

#include <cstdint>
#include <memory>

#include "src/destroy_queue.h"
#include "v8-array-buffer.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"
#include "v8-script.h"

namespace asyncctx {
namespace internal {

class DestroyTracker;
class RuntimeImpl;

// Indices into a context's hook fields: the enabled hooks by kind, and
// their total. The JavaScript layer gets every index from binding.constants
// at Install (the one definition is here).
enum HookField {
  kHookInit = 0,
  kHookBefore = 1,
  kHookAfter = 2,
  kHookDestroy = 3,
  kHookPromiseResolve = 4,
  kHookTotals = 5,
  // Hook callbacks running now, one inside another (0 when none), and the
  // kind (kHookInit...) of the innermost: a stack overflow in V8's promise
  // hooks is the program's or a hook error depending on them.
  kHookCallDepth = 6,
  kHookRunning = 7,
  kHookFieldCount = 8,
};

// Indices into a context's other fields, shared with the JavaScript layer
// in the same block, after the hook fields.
enum ContextField {
  // AsyncResources and promises registered for GC-driven destroy.
  kContextTrackedResources = 0,
  // Runtime options: the thenable repair is allowed, and active here.
  kContextThenableRepair = 1,
  kContextRepairActive = 2,
  // Checkpoints of this context's microtask queue that completed, counted
  // where queueMicrotask keeps a ring (!compat::kV8PropagatesThenables): a
  // runner queued before the last one has run or was dropped by V8
  // (src/js/queue_microtask.js). The isolate's checkpoint generation is no
  // substitute: it counts the checkpoints of every queue.
  kContextQueueCheckpoints = 3,
  // RuntimeOptions::host_checkpoints: the host (or V8, with kAuto) starts
  // checkpoints, in whatever frame its task left (src/js/thenable_repair.js).
  kContextHostCheckpoints = 4,
  // The checkpoint generation (ExecutionStack::kCheckpointGeneration) in
  // which the marker a host task queued first (RuntimeImpl::
  // OnCheckpointMarker, host_checkpoints on V8 10.2) ran for this context's
  // queue: from there on the slot is undefined between jobs, as in the
  // runtime's own checkpoints; -1 before any.
  kContextMarkedCheckpoint = 5,
  kContextFieldCount = 8,
};

// The embedder-data slots of an installed context, as offsets from
// RuntimeOptions::context_embedder_index (the one definition of the layout).
enum ContextSlot {
  // The JavaScript layer's internals object (a strong reference: the
  // context keeps its layer alive).
  kContextSlotLayer = 0,
  // The ContextState (an aligned pointer).
  kContextSlotState = 1,
  // A tag that marks the context as installed by asyncctx (compared, never
  // dereferenced), as Node.js tags its contexts.
  kContextSlotTag = 2,
  kContextSlotCount = 3,
};

struct ContextState {
  // The one lookup from a context: the state that the runtime whose
  // RuntimeOptions::context_embedder_index is `embedder_index` keeps in
  // `context`, or null (empty context, never installed, or its runtime is
  // gone). Callers that hold no runtime yet (CallbackScope) use this form.
  static ContextState* Find(v8::Local<v8::Context> context, int embedder_index);
  // As above, for `runtime`: null as well when the state is another
  // runtime's, or `runtime` is null.
  static ContextState* Find(const RuntimeImpl* runtime,
                            v8::Local<v8::Context> context);
  // As Find(runtime, context), but an empty context or a missing
  // installation is a fatal usage error that names `api`.
  static ContextState* FindOrDie(const RuntimeImpl* runtime,
                                 v8::Local<v8::Context> context,
                                 const char* api);

  // Writes the slots of `context` (from `embedder_index`): `layer`, this
  // state and the tag. Find() finds this state from then on.
  void Attach(v8::Local<v8::Context> context,
              int embedder_index,
              v8::Local<v8::Value> layer);
  // Clears the state and tag slots of `context`: Find() finds nothing there
  // any more.
  static void Detach(v8::Local<v8::Context> context, int embedder_index);

  bool HasHooks(HookField field) const { return hook_fields[field] > 0; }

  // One of the JavaScript layer's entry points (ASYNCCTX_LAYER_FUNCTIONS,
  // src/layer_contract.h), e.g. LayerFunction(context, &ContextState::
  // emit_init). Read from the layer's internals at its first use, which
  // runs the module that makes it (Install runs only the modules every
  // context needs), and kept in the member (weak) from then on. Empty with
  // an exception pending when that read fails (the module's first run at
  // the stack limit, a termination): the next use tries again. `context` is
  // this state's context.
  v8::Local<v8::Function> LayerFunction(
      v8::Local<v8::Context> context,
      v8::Global<v8::Function> ContextState::*member);
  // As above for any function the internals object holds under `name`,
  // kept in `*slot`.
  v8::Local<v8::Function> LayerFunction(v8::Local<v8::Context> context,
                                        v8::Global<v8::Function>* slot,
                                        const char* name);

  // The isolate is being torn down: empties every handle without telling V8
  // (src/isolate_teardown.h), so that the state can be freed. Lists every
  // v8::Global member.
  void AbandonHandles();

  RuntimeImpl* runtime;
  // Install order: iterations over contexts that call into JavaScript visit
  // them in this order.
  uint64_t serial = 0;
  v8::Global<v8::Context> context;  // weak; its callback frees this state
  v8::Global<v8::Object> holder;    // weak; internal field 0 -> this
  std::shared_ptr<v8::BackingStore> hook_store;
  // The ArrayBuffer of hook_store that the JavaScript layer's views use
  // (weak), detached when the runtime is destroyed.
  v8::Global<v8::ArrayBuffer> hook_buffer;
  double* hook_fields = nullptr;     // HookField, in hook_store
  double* context_fields = nullptr;  // ContextField, after the hook fields

  // The JavaScript layer's internal entry points (weak: the context keeps
  // them alive through its embedder data). Empty until their first use:
  // read them through LayerFunction().
  v8::Global<v8::Array> resources;
  v8::Global<v8::Function> layer_function;  // internals.layerFunction
  v8::Global<v8::Function> emit_init;
  v8::Global<v8::Function> emit_before;
  v8::Global<v8::Function> emit_after;
  v8::Global<v8::Function> emit_destroy_batch;
  v8::Global<v8::Function> refresh_promise_hooks;
  v8::Global<v8::Function> frame_with;
  v8::Global<v8::Function> frame_lookup;
  v8::Global<v8::Value> frame_missing;  // what frame_lookup returns if absent
  v8::Global<v8::Value> root_frame;     // the root frame as an object
  v8::Global<v8::Function> invalid_arg_type;
  v8::Global<v8::Function> make_node_error;
  v8::Global<v8::Function> reset_after_termination;
  // The original AsyncLocalStorage.prototype.getStore and
  // AsyncContext.Variable.prototype.get, as their modules took them when
  // they made the classes (read from the layer by the first
  // ContextKey::FromJavaScript): they throw for any object without the
  // classes' private fields, which makes them its brand check.
  v8::Global<v8::Function> als_get_store;
  v8::Global<v8::Function> variable_get;

  // The node:async_hooks synthetic module (src/node_module.cc), made on
  // first request. Weak: whatever imported it keeps it alive.
  v8::Global<v8::Module> async_hooks_module;
  // The node:diagnostics_channel synthetic module, likewise.
  v8::Global<v8::Module> diagnostics_channel_module;

  // Async ids waiting for their destroy hooks (emitted from a task).
  DestroyQueue destroys;
  // A microtask that emits `destroys` is queued (the queue hit its bound).
  bool destroy_flush_queued = false;
  // The state is on the runtime's list of states with queued destroys
  // (RuntimeImpl::destroy_pending_).
  bool destroy_pending = false;
  // The objects of this context tracked for GC-driven destroy (owned by the
  // runtime, which keeps it after this state is freed; null until used).
  DestroyTracker* destroy_tracker = nullptr;
  // The context's microtask queue (its own, or the isolate's default one).
  // Not owned: the host may destroy its own queue once the context is
  // collected, so it is never used after that.
  v8::MicrotaskQueue* microtask_queue = nullptr;
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_CONTEXT_STATE_H_
