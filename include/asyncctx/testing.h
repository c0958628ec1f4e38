// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx/testing.h: introspection for tests and benchmarks.
//
// Hosts do not need anything here: these functions expose bookkeeping that
// tests and benchmarks check (is GC-driven destroy tracking released? does
// a workload leak registrations?). They live apart from Runtime so that the
// class a host programs against stays small; the umbrella header
// asyncctx/asyncctx.h does not include this one.
//
//   #include "asyncctx/testing.h"
//   EXPECT_EQ(asyncctx::RuntimeTesting::TrackedResourceCount(*runtime), 0u);

#ifndef ASYNCCTX_TESTING_H_
#define ASYNCCTX_TESTING_H_

#include <cstddef>

#include "asyncctx/export.h"
#include "asyncctx/runtime.h"

namespace asyncctx {

// Read-only views of a Runtime's internal state, for tests and benchmarks.
class ASYNCCTX_EXPORT RuntimeTesting {
 public:
  RuntimeTesting() = delete;

  // Number of objects (JavaScript AsyncResources, and promises while a
  // destroy hook is enabled) currently registered for GC-driven destroy
  // tracking, over all of `runtime`'s live contexts.
  static size_t TrackedResourceCount(const Runtime& runtime);
};

}  // namespace asyncctx

#endif  // ASYNCCTX_TESTING_H_
