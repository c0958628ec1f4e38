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
#include <string>

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

  // Number of Runtimes in the process that were created and are not freed
  // yet: destroyed by their host, or freed by asyncctx when the host
  // disposed their isolate without destroying them (docs/embedding.md).
  static int LiveRuntimeCount();

  // The process-wide code cache of the JavaScript layer (made by the first
  // Install() of the process, used by the later ones in any isolate; see
  // docs/embedding.md). The counters only grow.
  struct LayerCodeCacheStats {
    size_t produced = 0;  // caches made from a compilation
    size_t consumed = 0;  // Install()s that compiled with a cache V8 accepted
    size_t rejected = 0;  // Install()s whose cache V8 rejected
    size_t bytes = 0;     // size of the current cache; 0 if there is none
  };
  // The counters and size of the layer's code cache, now.
  static LayerCodeCacheStats LayerCodeCache();

  // Replaces the current cache with `bytes` (empty: no cache, so that the
  // next Install() compiles from source and makes one). Bytes that V8 does
  // not accept make the next Install() compile from source and replace
  // them.
  static void SetLayerCodeCache(const std::string& bytes);

  // Execution-stack blocks (the 1 MiB of address space each Runtime
  // reserves with mmap) not yet unmapped, in the whole process: equal to the
  // number of live Runtimes, plus blocks JavaScript views still hold, until
  // their isolates are disposed. Exact under the sanitizers too, where
  // resident and virtual memory sizes cannot bound a leak.
  static size_t LiveExecutionStackBlocks();
};

}  // namespace asyncctx

#endif  // ASYNCCTX_TESTING_H_
