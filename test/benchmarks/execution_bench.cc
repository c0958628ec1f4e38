// Copyright 2026 the asyncctx authors. All rights reserved.

#include "benchmark/benchmark.h"
#include "src/execution_stack.h"

namespace asyncctx {
namespace {

void BM_ExecutionStackPushPop(benchmark::State& state) {
  ExecutionStack stack;
  for (int64_t i = 0; i < state.range(0); i++) stack.Push(100 + i, 1);
  double id = 1e9;
  for (auto _ : state) {
    stack.Push(id, 1);
    stack.Pop(id);
    benchmark::DoNotOptimize(stack.depth());
    id++;
  }
}
BENCHMARK(BM_ExecutionStackPushPop)->Arg(0)->Arg(16);

}  // namespace
}  // namespace asyncctx
