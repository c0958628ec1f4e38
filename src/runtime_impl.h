// Copyright 2026 the asyncctx authors. All rights reserved.
//
// RuntimeImpl: the implementation behind asyncctx::Runtime, and ContextState,
// what the runtime keeps for each context it was installed into.
//
// Ownership and lifetimes:
// * RuntimeImpl owns the ExecutionStack memory through a v8::BackingStore,
//   so JavaScript views of it stay valid even if the runtime goes first.
// * Each ContextState is owned by the runtime and freed when its context is
//   collected (weak callback) or when the runtime is destroyed. The context
//   holds the JavaScript layer strongly (embedder data); C++ holds it weakly,
//   so nothing here keeps a context alive.
// * Native bindings reach their ContextState through a small holder object;
//   the runtime clears it on destruction so that late calls throw instead of
//   touching freed memory.
//
// Where the pieces live (RuntimeImpl keeps ownership and the wiring):
//   src/runtime_impl.cc      creation, teardown, per-context state, reporting
//   src/install.cc           Runtime::Install: bindings, layer, globals
//   src/js_bindings.cc       the native functions the JavaScript layer calls
//   src/checkpoint.cc        microtask checkpoints, recovery from termination
//   src/destroy_queue.cc     batched destroy hooks (DestroyQueue)
//   src/rejection_tracker.cc unhandled-rejection tracking (RejectionTracker)

#ifndef ASYNCCTX_SRC_RUNTIME_IMPL_H_
#define ASYNCCTX_SRC_RUNTIME_IMPL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "asyncctx/async_resource.h"
#include "asyncctx/callback_scope.h"
#include "asyncctx/context_key.h"
#include "asyncctx/runtime.h"
#include "src/destroy_queue.h"
#include "src/execution_stack.h"
#include "src/rejection_tracker.h"
#include "src/runtime_registry.h"
#include "v8-array-buffer.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {

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
  // Bumped whenever a microtask checkpoint completes (queueMicrotask's
  // queue of wrapped callbacks is empty then, or stale after termination).
  kContextCheckpointGeneration = 3,
  kContextFieldCount = 8,
};

struct ContextState {
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
  // them alive through its embedder data).
  v8::Global<v8::Array> resources;
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
  // AsyncContext.Variable.prototype.get, captured at Install: they throw for
  // any object without the classes' private fields, which makes them the
  // brand check of ContextKey::FromJavaScript.
  v8::Global<v8::Function> als_get_store;
  v8::Global<v8::Function> variable_get;

  // The node:async_hooks synthetic module (src/node_module.cc), made on
  // first request. Weak: whatever imported it keeps it alive.
  v8::Global<v8::Module> async_hooks_module;

  // Async ids waiting for their destroy hooks (emitted from a task).
  DestroyQueue destroys;
  // A microtask that emits `destroys` is queued (the queue hit its bound).
  bool destroy_flush_queued = false;

  bool HasHooks(HookField field) const { return hook_fields[field] > 0; }
};

class RuntimeImpl final : public Runtime {
 public:
  RuntimeImpl(v8::Isolate* isolate, RuntimeOptions options);
  ~RuntimeImpl() override;

  // Runtime:
  v8::Maybe<bool> Install(v8::Local<v8::Context> context,
                          const InstallOptions& options) override;
  bool IsInstalled(v8::Local<v8::Context> context) const override;
  double ExecutionAsyncId() const override {
    return stack_.execution_async_id();
  }
  double TriggerAsyncId() const override { return stack_.trigger_async_id(); }
  size_t ExecutionStackDepth() const override { return stack_.depth(); }
  void RunMicrotasks(v8::Local<v8::Context> context) override;
  void EmitPendingDestroys() override;
  void SetThenableRepair(bool enabled) override;

  // RuntimeTesting::TrackedResourceCount (asyncctx/testing.h).
  size_t TrackedResourceCount() const;

  // The runtime of `isolate`, or null.
  static RuntimeImpl* FromIsolate(v8::Isolate* isolate) {
    return RuntimeRegistry::Find(isolate);
  }

  // Distinguishes this runtime from every other one created in the process,
  // including one later allocated at the same address.
  uint64_t generation() const { return generation_; }

  // Counts what is running on behalf of the runtime (a checkpoint, a destroy
  // batch, a callback scope): destroying the runtime then is a fatal error.
  class BusyScope {
   public:
    explicit BusyScope(RuntimeImpl* runtime) : runtime_(runtime) {
      runtime_->busy_++;
    }
    ~BusyScope() { runtime_->busy_--; }
    BusyScope(const BusyScope&) = delete;
    BusyScope& operator=(const BusyScope&) = delete;

   private:
    RuntimeImpl* runtime_;
  };

  // The state of an installed context, or null.
  ContextState* StateFor(v8::Local<v8::Context> context) const;
  // The state that a runtime whose RuntimeOptions::context_embedder_index is
  // `embedder_index` keeps in `context`, or null (checks the tag): the
  // lookup of callers that hold no runtime yet (CallbackScope).
  static ContextState* StateAt(v8::Local<v8::Context> context,
                               int embedder_index);
  // As StateFor, but a missing installation is a fatal usage error that
  // names `api`.
  ContextState* StateForOrDie(v8::Local<v8::Context> context,
                              const char* api) const;

  ExecutionStack& stack() { return stack_; }
  const RuntimeOptions& options() const { return options_; }

  // Makes `frame` the current frame of `context`, activating the thenable
  // repair the first time a non-root frame is entered.
  void EnterFrame(ContextState* state,
                  v8::Local<v8::Context> context,
                  v8::Local<v8::Value> frame);

  // The root frame as the JavaScript layer's object (V8 10.2 captures it for
  // promise jobs, where it skips undefined), or undefined.
  v8::Local<v8::Value> RootFrame(v8::Local<v8::Context> context);

  // Writes `resource` as executionAsyncResource() for stack entry `index`.
  void SetResource(ContextState* state,
                   v8::Local<v8::Context> context,
                   size_t index,
                   v8::Local<v8::Value> resource);

  // The host resource whose CallbackScope pushed stack entry `index`, or
  // null. The vector only grows (no allocation once a depth was reached).
  void SetHostResource(size_t index, AsyncResource* resource) {
    if (index >= host_resources_.size()) {
      host_resources_.resize(index + 1 > 2 * host_resources_.size()
                                 ? index + 1
                                 : 2 * host_resources_.size());
    }
    host_resources_[index] = resource;
  }
  AsyncResource* HostResourceAt(size_t index) const {
    return index < host_resources_.size() ? host_resources_[index] : nullptr;
  }

  // Queues `async_id` for `state`'s destroy hooks. `from_javascript`: the
  // caller is a binding called by JavaScript (not a GC callback), so a full
  // batch may be flushed by a microtask right away.
  void QueueDestroy(ContextState* state,
                    double async_id,
                    bool from_javascript = false);
  void ReportHookError(const char* hook, v8::Local<v8::Value> error);
  void ReportUncaught(v8::Local<v8::Context> context,
                      v8::Local<v8::Value> error,
                      v8::Local<v8::Message> message);

  // Nesting of open CallbackScopes (the outermost runs the checkpoint).
  int callback_scope_depth = 0;
  // The innermost open CallbackScope: an exception V8 reports as uncaught
  // while it is open marks it failed.
  CallbackScope* innermost_scope = nullptr;
  // The innermost open ContextKey::Scope (scopes must close in order).
  const ContextKey::Scope* innermost_key_scope = nullptr;

  // Drops the microtasks queued in `context`'s queue without running them
  // (after a terminated callback), and schedules the recovery of the
  // bookkeeping the terminated JavaScript could not undo. While the isolate
  // is still terminating (the host's TryCatch holds the termination) V8
  // cannot empty a queue: the drop is then deferred to the next
  // RunMicrotasks() or outermost CallbackScope, before anything else runs.
  void DropMicrotasks(v8::Local<v8::Context> context);
  // Carries out deferred drops (see DropMicrotasks); cheap when none is.
  void DropDeferredMicrotasks() {
    if (!deferred_drops_.empty())
      DropDeferredMicrotasksSlow();
  }

  // The microtask that emits a full destroy batch (destroy_queue.cc) and the
  // isolate's message listener; public for the list of external references
  // (src/external_references.cc).
  static void FlushDestroysMicrotask(
      const v8::FunctionCallbackInfo<v8::Value>& info);
  static void OnMessage(v8::Local<v8::Message> message,
                        v8::Local<v8::Value> data);

  // `resource` is being deleted while a CallbackScope for it is open: its
  // JavaScript object stands in for it until the scope closes.
  void OrphanHostResource(AsyncResource* resource);

 private:
  void ActivateThenableRepair(ContextState* state,
                              v8::Local<v8::Context> context);
  void ForgetState(ContextState* state);
  // The installed contexts' states in install order, copied so that the
  // caller may call into JavaScript (which may collect a context and erase
  // its state) while it walks them; check IsLive() before each use.
  std::vector<ContextState*> SnapshotStates() const;
  bool IsLive(ContextState* state) const { return states_.contains(state); }

  // destroy_queue.cc
  void PostDestroyTask();
  void EmitDestroyBatch(ContextState* state);
  // checkpoint.cc
  void RecoverFromTermination();
  void DropDeferredMicrotasksSlow();
  void DropQueue(v8::Local<v8::Context> context);

  // install.cc: stack_views_, made on first use.
  v8::MaybeLocal<v8::Array> StackViews();

  // Adds OnMicrotasksCompleted to `queue` once (each context may have its
  // own queue; the isolate's default queue is shared).
  void RegisterMicrotaskQueue(v8::MicrotaskQueue* queue);

  static void OnContextCollected(const v8::WeakCallbackInfo<ContextState>&);
  static bool IsStackOverflowInLayer(v8::Isolate* isolate,
                                     v8::Local<v8::Message> message);
  static void OnPromiseReject(v8::PromiseRejectMessage message);
  static void OnMicrotasksCompleted(v8::Isolate* isolate, void* data);

  RuntimeOptions options_;
  const uint64_t generation_;
  int busy_ = 0;
  ExecutionStack stack_;
  std::shared_ptr<v8::BackingStore> stack_store_;
  // The views of stack_store_ every installed context shares, made at the
  // first Install in a context of the runtime's own (install.cc).
  v8::Global<v8::Array> stack_views_;
  absl::flat_hash_map<ContextState*, std::unique_ptr<ContextState>> states_;
  uint64_t next_state_serial_ = 0;
  std::vector<AsyncResource*> host_resources_;
  // Queues whose completed callback is OnMicrotasksCompleted.
  std::vector<v8::MicrotaskQueue*> microtask_queues_;
  RejectionTracker rejections_;
  bool destroy_task_posted_ = false;
  // A microtask checkpoint ended in TerminateExecution.
  bool checkpoint_terminated_ = false;
  // Contexts whose queue holds a terminated callback's microtasks, to drop
  // once the isolate no longer terminates (weak: a collected context's queue
  // is gone with it).
  std::vector<v8::Global<v8::Context>> deferred_drops_;
  // Tasks posted to the platform hold a weak reference to this, so that a
  // task running after the runtime is gone does nothing.
  std::shared_ptr<RuntimeImpl*> alive_;
};

// The address stored in a context's embedder data slot
// RuntimeOptions::context_embedder_index + 2 to mark it as installed by
// asyncctx (compared, never dereferenced), as Node.js tags its contexts.
void* ContextTag();

// The runtime of `isolate`, or a fatal usage error that names `api`.
RuntimeImpl* RuntimeForOrDie(v8::Isolate* isolate, const char* api);

}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_RUNTIME_IMPL_H_
