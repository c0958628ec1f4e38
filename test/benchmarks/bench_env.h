// Copyright 2026 the asyncctx authors. All rights reserved.

#ifndef ASYNCCTX_TEST_BENCHMARKS_BENCH_ENV_H_
#define ASYNCCTX_TEST_BENCHMARKS_BENCH_ENV_H_

#include "v8-platform.h"

namespace asyncctx {
namespace bench {

// The process-wide V8 platform (initialized by benchmark_main.cc).
v8::Platform* Platform();

}  // namespace bench
}  // namespace asyncctx

#endif  // ASYNCCTX_TEST_BENCHMARKS_BENCH_ENV_H_
