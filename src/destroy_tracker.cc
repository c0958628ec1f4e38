// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/destroy_tracker.h"

#include "src/context_state.h"
#include "src/isolate_teardown.h"
#include "src/runtime_impl.h"

namespace asyncctx {
namespace internal {

struct DestroyTracker::Entry {
  DestroyTracker* tracker;
  double async_id;
  Entry* previous;
  Entry* next;
  v8::Global<v8::Object> handle;
};

DestroyTracker::DestroyTracker(ContextState* state)
    : state_(state), runtime_(state->runtime) {}

DestroyTracker::~DestroyTracker() {
  while (head_ != nullptr) {
    Entry* entry = head_;
    Unlink(entry);
    entry->handle.Reset();
    delete entry;
  }
}

void DestroyTracker::Abandon() {
  for (Entry* entry = head_; entry != nullptr; entry = entry->next)
    AbandonGlobal(&entry->handle);
}

void DestroyTracker::Track(v8::Isolate* isolate,
                           v8::Local<v8::Object> object,
                           double async_id) {
  Entry* entry = new Entry{this, async_id, nullptr, head_, {}};
  entry->handle.Reset(isolate, object);
  entry->handle.SetWeak(entry, &OnCollected, v8::WeakCallbackType::kParameter);
  if (head_ != nullptr)
    head_->previous = entry;
  head_ = entry;
  size_++;
  if (state_ != nullptr)
    state_->context_fields[kContextTrackedResources] = size_;
}

void DestroyTracker::Unlink(Entry* entry) {
  if (entry->previous != nullptr)
    entry->previous->next = entry->next;
  else
    head_ = entry->next;
  if (entry->next != nullptr)
    entry->next->previous = entry->previous;
  size_--;
}

// A first-pass weak callback, inside the GC: it may reset the handle and
// touch C++ memory, nothing else of V8. The ids reach JavaScript later, from
// the destroy task or, for a full queue, the microtask the interrupt queues.
void DestroyTracker::OnCollected(const v8::WeakCallbackInfo<Entry>& info) {
  Entry* entry = info.GetParameter();
  DestroyTracker* tracker = entry->tracker;
  entry->handle.Reset();
  tracker->Unlink(entry);
  const double async_id = entry->async_id;
  delete entry;
  ContextState* state = tracker->state_;
  // A detached tracker is freed by the runtime once it is empty.
  if (state == nullptr)
    return;
  state->context_fields[kContextTrackedResources] = tracker->size_;
  if (!tracker->destroyed_by_hand_.empty() &&
      tracker->destroyed_by_hand_.erase(async_id) > 0) {
    return;
  }
  tracker->runtime_->QueueDestroyFromGC(state, async_id);
}

}  // namespace internal
}  // namespace asyncctx
