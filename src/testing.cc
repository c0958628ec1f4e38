// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/testing.h"

#include "src/runtime_impl.h"

namespace asyncctx {

size_t RuntimeTesting::TrackedResourceCount(const Runtime& runtime) {
  return static_cast<const RuntimeImpl&>(runtime).TrackedResourceCount();
}

}  // namespace asyncctx
