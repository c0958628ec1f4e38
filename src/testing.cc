// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/testing.h"

#include <memory>

#include "src/code_cache.h"
#include "src/execution_stack.h"
#include "src/runtime_impl.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

size_t RuntimeTesting::TrackedResourceCount(const Runtime& runtime) {
  return static_cast<const RuntimeImpl&>(runtime).TrackedResourceCount();
}

int RuntimeTesting::LiveRuntimeCount() {
  return RuntimeImpl::LiveCount();
}

RuntimeTesting::LayerCodeCacheStats RuntimeTesting::LayerCodeCache() {
  asyncctx::LayerCodeCacheStats internal = GetLayerCodeCacheStats();
  LayerCodeCacheStats stats;
  stats.produced = internal.produced;
  stats.consumed = internal.consumed;
  stats.rejected = internal.rejected;
  stats.bytes = internal.bytes;
  return stats;
}

void RuntimeTesting::SetLayerCodeCache(const std::string& bytes) {
  asyncctx::SetLayerCodeCache(
      bytes.empty() ? nullptr : std::make_shared<const std::string>(bytes));
}

size_t RuntimeTesting::LiveExecutionStackBlocks() {
  return ExecutionStack::LiveBlocks();
}

}  // namespace asyncctx
