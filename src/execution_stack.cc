// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/execution_stack.h"

#include "src/errors.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

namespace asyncctx {
namespace internal {

std::atomic<size_t> ExecutionStack::live_blocks_{0};

ExecutionStack::ExecutionStack() {
  // Address space only: the kernel commits zeroed pages on first touch and
  // they stay committed (the high-water mark) until the runtime goes away.
  memory_ = mmap(nullptr, kMemoryBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory_ == MAP_FAILED) {
    std::fprintf(stderr,
                 "asyncctx: cannot reserve %zu bytes for the execution stack\n",
                 kMemoryBytes);
    std::abort();
  }
  live_blocks_.fetch_add(1, std::memory_order_relaxed);
  fields_ = static_cast<double*>(memory_);
  depth_ =
      reinterpret_cast<uint32_t*>(static_cast<char*>(memory_) + kDepthOffset);
  entries_ =
      reinterpret_cast<double*>(static_cast<char*>(memory_) + kFieldsBytes);
  fields_[kExecutionAsyncId] = kTopLevelExecutionAsyncId;
  fields_[kTriggerAsyncId] = kTopLevelTriggerAsyncId;
  fields_[kAsyncIdCounter] = kTopLevelExecutionAsyncId;
  fields_[kDefaultTriggerAsyncId] = -1;
  *depth_ = 0;
  fields_[kStackCapacity] = static_cast<double>(kCapacity);
}

ExecutionStack::~ExecutionStack() {
  if (owns_memory_)
    FreeMemory(memory_, kMemoryBytes, nullptr);
}

void ExecutionStack::FreeMemory(void* memory, size_t length, void*) {
  if (munmap(memory, length) == 0)
    live_blocks_.fetch_sub(1, std::memory_order_relaxed);
}

size_t ExecutionStack::LiveBlocks() {
  return live_blocks_.load(std::memory_order_relaxed);
}

void ExecutionStack::FatalCorruption(double current, double popped) {
  char problem[160];
  std::snprintf(problem, sizeof(problem),
                "popping async id %.0f but the current execution async id is "
                "%.0f",
                popped, current);
  FatalUsage("async context stack corruption", problem);
}

}  // namespace internal
}  // namespace asyncctx
