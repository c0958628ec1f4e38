// Copyright 2026 the asyncctx authors. All rights reserved.
//
// DestroyTracker: GC-driven `destroy` for the objects of one context
// (AsyncResources and promises created while a destroy hook is enabled).
//
// Each tracked object has a weak v8::Global whose first-pass callback queues
// the object's async id in its context's DestroyQueue. A FinalizationRegistry
// would do the same in JavaScript, but keeps every dead object's cell until
// its cleanup task runs, and that task never runs while a chain of microtasks
// never yields (`for (;;) await null` with a destroy hook grew by about 270
// bytes an await). Here the collected object leaves nothing behind but its
// id in the queue, and a full queue is emitted from a microtask, requested
// through an interrupt (RuntimeImpl::OnDestroyInterrupt), as Node.js does.
//
// Lifetime: a tracker belongs to its runtime, not to its ContextState. When
// the context is collected, weak callbacks of its objects may still be
// pending in the same GC; the runtime then detaches the tracker (those ids
// are dropped) and keeps it until its last object is gone, or until the
// runtime itself is destroyed, which resets every handle still registered.

#ifndef ASYNCCTX_SRC_DESTROY_TRACKER_H_
#define ASYNCCTX_SRC_DESTROY_TRACKER_H_

#include <cstddef>

#include "absl/container/flat_hash_set.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"

namespace asyncctx {
namespace internal {

class RuntimeImpl;
struct ContextState;

class DestroyTracker {
 public:
  explicit DestroyTracker(ContextState* state);
  // Resets the handles of the objects still tracked (never called from GC).
  ~DestroyTracker();
  // The isolate is being torn down (src/isolate_teardown.h): empties every
  // handle without V8, so that the destructor touches no dead heap.
  void Abandon();

  DestroyTracker(const DestroyTracker&) = delete;
  DestroyTracker& operator=(const DestroyTracker&) = delete;

  // Queues `async_id`'s destroy when `object` is collected.
  void Track(v8::Isolate* isolate,
             v8::Local<v8::Object> object,
             double async_id);
  // The tracked object of `async_id` emitted its destroy itself
  // (AsyncResource#emitDestroy): its collection queues nothing.
  void MarkDestroyedByHand(double async_id) {
    destroyed_by_hand_.insert(async_id);
  }
  // The context is being collected: collected objects queue nothing more.
  void Detach() { state_ = nullptr; }
  bool detached() const { return state_ == nullptr; }

  // Objects tracked and not yet collected.
  size_t size() const { return size_; }

 private:
  struct Entry;
  static void OnCollected(const v8::WeakCallbackInfo<Entry>& info);
  void Unlink(Entry* entry);

  ContextState* state_;
  RuntimeImpl* const runtime_;
  // Every entry still tracked, linked so that the destructor can reset them.
  Entry* head_ = nullptr;
  size_t size_ = 0;
  absl::flat_hash_set<double> destroyed_by_hand_;
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_DESTROY_TRACKER_H_
