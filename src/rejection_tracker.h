// Copyright 2026 the asyncctx authors. All rights reserved.
//
// RejectionTracker: promises rejected with no handler, waiting for the end of
// the microtask checkpoint to be reported as unhandled.
//
// V8 tells the runtime about a rejection without a handler
// (kPromiseRejectWithNoHandler) and about a handler added later
// (kPromiseHandlerAddedAfterReject: a late `.catch()`). Each rejection is
// recorded with the context frame current when it happened, so that the
// host's handler sees the rejecting request's stores. A late handler finds
// its entry through a hash map keyed by the promise's identity hash, so
// handling N rejected promises costs O(N), whatever the order; entries stay
// in rejection order for reporting.

#ifndef ASYNCCTX_SRC_REJECTION_TRACKER_H_
#define ASYNCCTX_SRC_REJECTION_TRACKER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "v8-context.h"
#include "v8-persistent-handle.h"
#include "v8-promise.h"

namespace asyncctx {
namespace internal {

class RejectionTracker {
 public:
  // Called with each promise still unhandled, in its context, inside the
  // frame recorded for it.
  using Handler = std::function<void(v8::Local<v8::Context> context,
                                     v8::Local<v8::Promise> promise,
                                     v8::Local<v8::Value> reason)>;

  explicit RejectionTracker(v8::Isolate* isolate) : isolate_(isolate) {}

  // kPromiseRejectWithNoHandler: records `promise`, rejected with `reason`
  // in the isolate's current context and frame.
  void OnRejectWithNoHandler(v8::Local<v8::Promise> promise,
                             v8::Local<v8::Value> reason);
  // kPromiseHandlerAddedAfterReject: forgets `promise`.
  void OnHandlerAdded(v8::Local<v8::Promise> promise);

  // Reports every recorded promise through `handler` and forgets them.
  // Rejections recorded while the handler runs wait for the next call.
  void Process(const Handler& handler);

  // Forgets everything without reporting.
  void Clear();
  // As Clear(), while the isolate is being torn down: without telling V8
  // (src/isolate_teardown.h).
  void Abandon();

  // Number of promises currently recorded as unhandled.
  size_t size() const { return live_; }

  // Entries compared with a promise by OnHandlerAdded() so far: one per
  // late handler unless identity hashes collide (tests check the bound).
  size_t comparisons() const { return comparisons_; }

 private:
  struct Entry {
    v8::Global<v8::Context> context;
    v8::Global<v8::Promise> promise;  // empty once handled
    v8::Global<v8::Value> reason;
    v8::Global<v8::Value> frame;
  };

  v8::Isolate* const isolate_;
  // In rejection order; handled entries are emptied, not erased.
  std::vector<std::unique_ptr<Entry>> entries_;
  // Promise identity hash -> unhandled entries with that hash.
  absl::flat_hash_map<int, absl::InlinedVector<Entry*, 1>> by_hash_;
  size_t live_ = 0;
  size_t comparisons_ = 0;
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_REJECTION_TRACKER_H_
