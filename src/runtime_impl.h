// Copyright 2026 the asyncctx authors. All rights reserved.
//
// RuntimeImpl: the implementation behind asyncctx::Runtime, a small owner
// that wires the parts of a runtime together.
//
// Ownership and lifetimes:
// * RuntimeImpl owns the ExecutionStack memory through a v8::BackingStore,
//   so JavaScript views of it stay valid even if the runtime goes first.
// * It owns one ContextState (src/context_state.h) per installed context.
//
// Where the parts live (RuntimeImpl keeps ownership and the wiring):
//   src/runtime.cc           Runtime::New/Create/From (the factories)
//   src/runtime_impl.cc      construction, teardown, the installed states
//   src/install.cc           Runtime::Install, in named stages
//   src/context_state.cc     per-context state and its embedder-data slots
//   src/frame.cc             frame entry, the root frame, the thenable repair
//   src/checkpoint.cc        microtask checkpoints, recovery from termination
//   src/destroy_hooks.cc     batched destroy hooks (ids in a DestroyQueue)
//   src/message_routing.cc   uncaught exceptions, hook errors, rejections
//   src/rejection_tracker.cc unhandled-rejection tracking (RejectionTracker)
//   src/runtime_registry.cc  the runtime of an isolate (RuntimeRegistry)
//   src/isolate_teardown.cc  frees the runtime if the host disposes the
//                            isolate first (IsolateTeardownWatch)
//   src/js_bindings.cc       the native functions the JavaScript layer calls

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
#include "src/context_state.h"
#include "src/destroy_queue.h"
#include "src/destroy_tracker.h"
#include "src/execution_stack.h"
#include "src/isolate_teardown.h"
#include "src/rejection_tracker.h"
#include "src/runtime_registry.h"
#include "v8-array-buffer.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-template.h"

namespace asyncctx {
namespace internal {

// Reaches into a CallbackScope for the library (the public header keeps its
// members opaque).
struct CallbackScopeAccess {
  // The state of the scope's context.
  static ContextState* State(const CallbackScope& scope);
  // An exception V8 reported as uncaught while `scope` was innermost: no
  // `after` hook runs (as CallbackScope::MarkAsFailed, without asking about
  // termination).
  static void MarkFailedByUncaught(CallbackScope* scope);
  // The scope's callback was terminated, though V8 has already ended the
  // termination (MakeCallback with no host TryCatch).
  static void MarkTerminated(CallbackScope* scope);
  // The scope's callback threw to JavaScript below it: the exception is on
  // its way there, and a checkpoint now would run JavaScript over it (V8 >=
  // 12 then loses it). The host's next checkpoint runs the microtasks.
  static void SkipCheckpoint(CallbackScope* scope);
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

  // The runtime's isolate was disposed (a new isolate reuses its address):
  // posted tasks do nothing from now on and the registry no longer knows the
  // runtime. Touches no V8 API.
  void OrphanFromDeadIsolate() {
    orphaned_ = true;
    alive_.reset();
  }

  // RuntimeTesting::TrackedResourceCount (asyncctx/testing.h).
  size_t TrackedResourceCount() const;
  // RuntimeTesting::LiveRuntimeCount: runtimes constructed and not yet
  // freed, in the process.
  static int LiveCount();

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

  ExecutionStack& stack() { return stack_; }
  const RuntimeOptions& options() const { return options_; }

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
  // The same from a first-pass weak callback (DestroyTracker): posts the
  // destroy task if none is posted, and requests an interrupt that queues
  // the flush microtask once the batch is full. Touches no V8 heap.
  void QueueDestroyFromGC(ContextState* state, double async_id);
  // The tracker of `state`'s objects for GC-driven destroy, made on first
  // use (destroy_hooks.cc).
  DestroyTracker* TrackerFor(ContextState* state);
  // message_routing.cc: an exception thrown by the `hook` hook, and one
  // nothing caught, to the host's handlers (RuntimeOptions).
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

  // The microtask that emits a full destroy batch (destroy_hooks.cc) and the
  // isolate's message listener; public for the list of external references
  // (src/external_references.cc).
  static void FlushDestroysMicrotask(
      const v8::FunctionCallbackInfo<v8::Value>& info);
  static void OnMessage(v8::Local<v8::Message> message,
                        v8::Local<v8::Value> data);

  // `resource` is being deleted while a CallbackScope for it is open: its
  // JavaScript object stands in for it until the scope closes.
  void OrphanHostResource(AsyncResource* resource);

  // The template of binding function `index` (kBindingFunctions) for the
  // ones that take no per-context data, made on first use and kept weakly:
  // every context's function shares it (and V8's SharedFunctionInfo).
  v8::Local<v8::FunctionTemplate> BindingTemplate(size_t index);

 private:
  // The installed contexts' states in install order, copied so that the
  // caller may call into JavaScript (which may collect a context and erase
  // its state) while it walks them; check IsLive() before each use.
  std::vector<ContextState*> SnapshotStates() const;
  bool IsLive(ContextState* state) const { return states_.contains(state); }

  // destroy_hooks.cc
  void PostDestroyTask();
  // Puts `state` on destroy_pending_ once (its destroys are not empty).
  void MarkDestroyPending(ContextState* state);
  // Takes `state` off destroy_pending_ (its context is collected).
  void UnmarkDestroyPending(ContextState* state);
  void EmitDestroyBatch(ContextState* state);
  // Queues the microtask that emits `state`'s destroy batch now (it runs
  // inside a chain of microtasks that never yields to the destroy task).
  void QueueDestroyFlush(ContextState* state);
  static void OnDestroyInterrupt(v8::Isolate* isolate, void* data);
  // `state`'s context is collected: detaches its tracker, and frees the
  // detached trackers whose objects are all gone.
  void DetachTracker(ContextState* state);
  // checkpoint.cc
  void RecoverFromTermination();
  void DropDeferredMicrotasksSlow();
  void DropQueue(v8::Local<v8::Context> context);

  // install.cc: the stages of Install. CheckInstallable throws and returns
  // false when `context` cannot be installed (microtasks policy, installed
  // already); NewContextState makes the state with its fields block;
  // StackViews returns stack_views_, made on first use; LayerTables returns
  // layer_tables_ and LayerSource layer_source_, likewise; AdoptState makes
  // the context installed (slots, weak handles, microtask queue) and takes
  // the state.
  bool CheckInstallable(v8::Local<v8::Context> context) const;
  std::unique_ptr<ContextState> NewContextState();
  v8::MaybeLocal<v8::Array> StackViews();
  v8::MaybeLocal<v8::Array> LayerTables(v8::Local<v8::Array> stack_views);
  v8::MaybeLocal<v8::String> LayerSource();
  void AdoptState(v8::Local<v8::Context> context,
                  std::unique_ptr<ContextState> owned_state,
                  v8::Local<v8::Object> holder,
                  v8::Local<v8::Object> internals);

  // Adds OnMicrotasksCompleted to `queue` once (each context may have its
  // own queue; the isolate's default queue is shared).
  void RegisterMicrotaskQueue(v8::MicrotaskQueue* queue);
  // Removes OnMicrotasksCompleted from `queue` when no installed context
  // uses it any more (called when a context is collected).
  void ReleaseMicrotaskQueue(v8::MicrotaskQueue* queue);

  // Frees the state of a collected context.
  static void OnContextCollected(const v8::WeakCallbackInfo<ContextState>&);
  // The isolate's heap is being torn down (IsolateTeardownWatch) with the
  // runtime alive: frees `data`, the runtime, without calling V8.
  static void OnIsolateTornDown(void* data);
  // message_routing.cc
  static bool IsStackOverflowInPromiseHook(v8::Isolate* isolate,
                                           v8::Local<v8::Message> message);
  void OnStackOverflowInPromiseHook(v8::Local<v8::Context> context,
                                    v8::Local<v8::Value> error);
  static void OnPromiseReject(v8::PromiseRejectMessage message);
  // checkpoint.cc
  static void OnMicrotasksCompleted(v8::Isolate* isolate, void* data);
  // RuntimeOptions::host_checkpoints: V8's callbacks at the end of every
  // outermost call and before every call into JavaScript.
  static void OnCallCompleted(v8::Isolate* isolate);
  static void OnBeforeCallEntered(v8::Isolate* isolate);
  // host_checkpoints on V8 10.2: the first thing a host task does queues,
  // into each queue that has none waiting, a marker job that puts every
  // context of that queue at the slot's between-jobs value (undefined), so
  // that the jobs the task queues after it, run in a checkpoint the host
  // starts, are told apart as in the runtime's own checkpoints: a reaction
  // finds the frame V8 entered (the root object for a then() at the root),
  // a thenable job finds undefined (src/js/thenable_repair.js). `data` is
  // the queue, only compared: the marker may outlive its runtime.
  void QueueCheckpointMarkers();
  static void OnCheckpointMarker(void* data);
  // The end of a host's task or checkpoint (host_checkpoints): recovery
  // after termination, rejections, destroy hooks, the root frame. Does
  // nothing while the runtime itself runs JavaScript or a CallbackScope is
  // open. `checkpoint_ended`: a microtask checkpoint ended (not only a
  // call).
  void EndHostTask(bool checkpoint_ended);
  // Makes the root frame current (in every installed context where V8 keeps
  // the continuation data per context).
  void EnterRootFrames();

  RuntimeOptions options_;
  const uint64_t generation_;
  int busy_ = 0;
  ExecutionStack stack_;
  std::shared_ptr<v8::BackingStore> stack_store_;
  // The views of stack_store_ every installed context shares, made at the
  // first Install in a context of the runtime's own (install.cc).
  v8::Global<v8::Array> stack_views_;
  // The binding's tables every installed context shares, made in the
  // context of stack_views_ (install.cc); weak, as stack_views_.
  v8::Global<v8::Array> layer_tables_;
  // BindingTemplate's, by index (weak).
  std::vector<v8::Global<v8::FunctionTemplate>> binding_templates_;
  // The JavaScript layer's source as a V8 string (external: over the
  // library's own bytes), weak: the scripts compiled from it keep it alive.
  // One string for every Install keeps V8's per-isolate compilation cache
  // lookup cheap (the hash is the string's, computed once, and the source
  // compares equal by identity) and saves a copy of the source per context.
  v8::Global<v8::String> layer_source_;
  absl::flat_hash_map<ContextState*, std::unique_ptr<ContextState>> states_;
  uint64_t next_state_serial_ = 0;
  std::vector<AsyncResource*> host_resources_;
  // Queues whose completed callback is OnMicrotasksCompleted, each with the
  // number of installed contexts that use it (usually one queue: the
  // isolate's default), so that a collected context costs no walk of
  // states_.
  // Each has an id, unique in the process, that is the data of its queue's
  // completed callback (so that a checkpoint counts for the contexts of
  // that queue only). Not a pointer: V8 calls the callbacks from a copy of
  // its list, so one removed while a host's callback of the same queue
  // runs (a GC that collects the queue's last context) is still called
  // once, and must find nothing.
  struct QueueUse {
    uint64_t id;
    v8::MicrotaskQueue* queue;
    size_t contexts;
    // A checkpoint marker waits in the queue (QueueCheckpointMarkers).
    bool marker_queued;
  };
  // Null if the id is no longer registered.
  QueueUse* FindQueueUse(void* callback_data);
  QueueUse* FindQueueUse(v8::MicrotaskQueue* queue);
  static void* CallbackData(const QueueUse& use) {
    return reinterpret_cast<void*>(static_cast<uintptr_t>(use.id));
  }
  // It shrinks when a queue's last context is collected, which a GC may do
  // inside any V8 call that allocates: a walk that calls V8 goes by index.
  std::vector<QueueUse> microtask_queues_;
  // The states whose destroys are not empty, in the order they got some:
  // a checkpoint's EmitPendingDestroys walks these, not every installed
  // context. destroy_pending_scratch_ is the walk's copy (its storage is
  // kept, so that emitting costs no allocation).
  std::vector<ContextState*> destroy_pending_;
  std::vector<ContextState*> destroy_pending_scratch_;
  RejectionTracker rejections_;
  bool destroy_task_posted_ = false;
  // OnDestroyInterrupt is requested and has not run yet.
  bool destroy_interrupt_requested_ = false;
  // Every context's DestroyTracker, detached ones included (they outlive
  // their ContextState until their objects are collected).
  std::vector<std::unique_ptr<DestroyTracker>> trackers_;
  // A microtask checkpoint ended in TerminateExecution (or, with
  // host_checkpoints, JavaScript was abandoned): the layer's bookkeeping is
  // reset before JavaScript runs again.
  bool checkpoint_terminated_ = false;
  // EndHostTask is running (its JavaScript may end a nested checkpoint).
  bool in_host_task_end_ = false;
  // Contexts whose queue holds a terminated callback's microtasks, to drop
  // once the isolate no longer terminates (weak: a collected context's queue
  // is gone with it).
  std::vector<v8::Global<v8::Context>> deferred_drops_;
  // Tasks posted to the platform hold a weak reference to this, so that a
  // task running after the runtime is gone does nothing.
  std::shared_ptr<RuntimeImpl*> alive_;
  // OrphanFromDeadIsolate() was called.
  bool orphaned_ = false;
  // Frees the runtime if the host disposes the isolate without destroying
  // it first.
  IsolateTeardownWatch teardown_watch_;
  // OnIsolateTornDown() emptied every handle: the destructor only frees
  // memory.
  bool abandoned_ = false;
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_RUNTIME_IMPL_H_
