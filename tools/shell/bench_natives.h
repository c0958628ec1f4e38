// Copyright 2026 the asyncctx authors. All rights reserved.
//
// `benchNatives` (with --bench-natives): the floors the JavaScript
// benchmarks (test/benchmarks/js/) compare against, as bare native bindings:
//   emptyFunction()          an API function that does nothing
//   EmptyConstructor(...)    an API constructor that does nothing
//   enqueueMicrotask(fn)     Isolate::EnqueueMicrotask, nothing else
//   heapStatistics()         {usedHeapSize, totalHeapSize, mallocedMemory}
//                            in bytes, from Isolate::GetHeapStatistics (for
//                            test/benchmarks/js/memory.js; testing and
//                            benchmarks only)
// The C++ benchmarks install the first three.

#ifndef TOOLS_SHELL_BENCH_NATIVES_H_
#define TOOLS_SHELL_BENCH_NATIVES_H_

#include "v8-context.h"
#include "v8-local-handle.h"

namespace asyncctx {
namespace shell {

bool InstallBenchNatives(v8::Local<v8::Context> context);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_BENCH_NATIVES_H_
