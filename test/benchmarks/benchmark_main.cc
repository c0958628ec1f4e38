// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Initializes V8 once, then runs every registered benchmark.

#include <memory>

#include "benchmark/benchmark.h"
#include "libplatform/libplatform.h"
#include "test/benchmarks/bench_env.h"
#include "v8-initialization.h"

namespace asyncctx {
namespace bench {
namespace {
std::unique_ptr<v8::Platform> g_platform;
}  // namespace

v8::Platform* Platform() {
  return g_platform.get();
}

}  // namespace bench
}  // namespace asyncctx

int main(int argc, char** argv) {
  asyncctx::bench::g_platform = v8::platform::NewDefaultPlatform();
  v8::V8::InitializePlatform(asyncctx::bench::g_platform.get());
  v8::V8::Initialize();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  v8::V8::Dispose();
  v8::V8::DisposePlatform();
  return 0;
}
