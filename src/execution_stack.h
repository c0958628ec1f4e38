// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ExecutionStack: who is running now, on behalf of which async resource.
//
// The current (execution, trigger) ids live in `fields`; each Push saves the
// previous pair in the entry array and each Pop restores it, as in Node.js.
// Both arrays live in one block of native memory that JavaScript reads and
// writes directly through Float64Array views (see src/js/execution_stack.js),
// so a push from JavaScript costs no call into C++.
//
// The storage never shrinks and never moves: the block is reserved once with
// mmap (address space only) and pages are committed by the kernel on first
// touch, so the committed size is the high-water mark of the depth, and a
// push or pop at any depth allocates nothing after that depth was reached
// once. (A std::deque would free a block whenever a pop crosses a block
// boundary; a std::vector would move and invalidate the JavaScript views.)

#ifndef ASYNCCTX_SRC_EXECUTION_STACK_H_
#define ASYNCCTX_SRC_EXECUTION_STACK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace asyncctx {
namespace internal {

class ExecutionStack {
 public:
  // Indices into fields(). The JavaScript layer gets them from
  // binding.constants at Install (this is the one definition).
  enum Field {
    kExecutionAsyncId = 0,
    kTriggerAsyncId = 1,
    kAsyncIdCounter = 2,
    kDefaultTriggerAsyncId = 3,
    kStackCapacity = 4,
    // Bumped whenever a microtask checkpoint of the isolate completes
    // (queueMicrotask's ring of wrapped callbacks is empty then, or stale
    // after termination): one counter for every context, so that a
    // checkpoint costs the same however many contexts are installed.
    kCheckpointGeneration = 5,
    // Hook callers open in any context of the isolate (src/js/hooks.js
    // counts each call of a kind's callbacks in and out). Not 0 with no
    // JavaScript running only when TerminateExecution skipped a caller's
    // `finally`: the one sign of that termination when it left nothing on
    // the execution stack (a hook called by a top-level script).
    kHookCallsOpen = 6,
    kFieldCount = 8,
  };

  // Deepest supported nesting of callback scopes. JavaScript's own stack
  // overflows long before this.
  static constexpr size_t kCapacity = size_t{1} << 16;

  // The ids a script sees at the top level, as in Node.js.
  static constexpr double kTopLevelExecutionAsyncId = 1;
  static constexpr double kTopLevelTriggerAsyncId = 0;

  ExecutionStack();
  ~ExecutionStack();

  ExecutionStack(const ExecutionStack&) = delete;
  ExecutionStack& operator=(const ExecutionStack&) = delete;

  // Makes (async_id, trigger_async_id) current, saving the previous pair.
  // Returns false (and changes nothing) when the stack is full.
  bool Push(double async_id, double trigger_async_id) {
    size_t depth = this->depth();
    if (depth >= kCapacity)
      return false;
    entries_[2 * depth] = fields_[kExecutionAsyncId];
    entries_[2 * depth + 1] = fields_[kTriggerAsyncId];
    *depth_ = static_cast<uint32_t>(depth + 1);
    fields_[kExecutionAsyncId] = async_id;
    fields_[kTriggerAsyncId] = trigger_async_id;
    return true;
  }

  // Restores the pair saved by the matching Push. `async_id` must be the
  // current execution id: anything else is stack corruption, a fatal error
  // that names both ids. Returns false if the stack was empty.
  bool Pop(double async_id) {
    size_t depth = this->depth();
    if (depth == 0)
      return false;
    if (fields_[kExecutionAsyncId] != async_id) {
      FatalCorruption(fields_[kExecutionAsyncId], async_id);
    }
    RestoreTo(depth - 1);
    return true;
  }

  // Pops everything above `depth` without checks (after an exception or
  // TerminateExecution skipped the matching pops).
  void UnwindTo(size_t depth) {
    if (depth < this->depth())
      RestoreTo(depth);
  }

  size_t depth() const { return *depth_; }
  double execution_async_id() const { return fields_[kExecutionAsyncId]; }
  double trigger_async_id() const { return fields_[kTriggerAsyncId]; }
  double NewAsyncId() { return ++fields_[kAsyncIdCounter]; }
  void NextCheckpointGeneration() { fields_[kCheckpointGeneration]++; }
  bool hook_calls_open() const { return fields_[kHookCallsOpen] != 0; }
  void ResetHookCallsOpen() { fields_[kHookCallsOpen] = 0; }
  double checkpoint_generation() const {
    return fields_[kCheckpointGeneration];
  }
  double DefaultTriggerAsyncId() const {
    double id = fields_[kDefaultTriggerAsyncId];
    return id < 0 ? fields_[kExecutionAsyncId] : id;
  }

  // The block shared with JavaScript: the double fields, then the depth as
  // a uint32 (kept apart from the doubles so that neither side converts it
  // on every push and pop), then the entries.
  void* memory() const { return memory_; }
  // Hands the block to a new owner (a v8::BackingStore whose deleter calls
  // FreeMemory), so that it outlives this object while JavaScript views of
  // it may still exist.
  void ReleaseMemoryOwnership() { owns_memory_ = false; }
  static void FreeMemory(void* memory, size_t length, void* unused);
  // Blocks reserved and not yet unmapped, in the whole process (for
  // RuntimeTesting: a block leaked per runtime shows here under every
  // sanitizer, where memory sizes say nothing).
  static size_t LiveBlocks();
  static constexpr size_t kDepthOffset = kFieldCount * sizeof(double);
  static constexpr size_t kFieldsBytes = 128;  // Where the entries start.
  static constexpr size_t kMemoryBytes =
      kFieldsBytes + 2 * kCapacity * sizeof(double);

  // Reports stack corruption and aborts the process.
  [[noreturn]] static void FatalCorruption(double current, double popped);

 private:
  void RestoreTo(size_t depth) {
    fields_[kExecutionAsyncId] = entries_[2 * depth];
    fields_[kTriggerAsyncId] = entries_[2 * depth + 1];
    *depth_ = static_cast<uint32_t>(depth);
  }

  static std::atomic<size_t> live_blocks_;

  void* memory_;
  bool owns_memory_ = true;
  double* fields_;
  uint32_t* depth_;
  double* entries_;
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_EXECUTION_STACK_H_
