// Copyright 2026 the asyncctx authors. All rights reserved.
//
// DestroyQueue: the async ids of one context waiting for their `destroy`
// hooks.
//
// Destroy hooks never run where the destroy happens: a resource may be
// collected by the GC, or destroyed while JavaScript is in the middle of a
// callback. The ids are queued here and emitted later, in one batch, from a
// task the runtime posts to the host (RuntimeOptions::post_task or the
// platform), or by Runtime::EmitPendingDestroys().
//
// The queue is bounded, as Node.js bounds its destroy list: once kBatchSize
// ids are waiting (a chain of millions of wrapped microtasks never yields to
// a task), the runtime queues a microtask that emits the batch
// (RuntimeImpl::QueueDestroy, src/destroy_hooks.cc).

#ifndef ASYNCCTX_SRC_DESTROY_QUEUE_H_
#define ASYNCCTX_SRC_DESTROY_QUEUE_H_

#include <cstddef>
#include <vector>

namespace asyncctx {
namespace internal {

class DestroyQueue {
 public:
  // Ids queued before the runtime flushes without waiting for its task
  // (Node.js's kDestroyAsyncIdsThreshold... 16 * 1024 in env.cc).
  static constexpr size_t kBatchSize = 16 * 1024;

  // Queues `async_id`. True when the queue has reached kBatchSize.
  bool Push(double async_id) {
    ids_.push_back(async_id);
    return ids_.size() >= kBatchSize;
  }

  bool empty() const { return ids_.empty(); }
  bool full() const { return ids_.size() >= kBatchSize; }

  // Moves the queued ids into `batch` (whose previous content is dropped)
  // and empties the queue, keeping both buffers' capacity for reuse.
  void TakeInto(std::vector<double>* batch);

 private:
  std::vector<double> ids_;
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_DESTROY_QUEUE_H_
