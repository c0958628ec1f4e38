// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The execution stack: one push+pop pair at a given depth.
//
// Target: under 5 ns per pair at depths 0 and 16, zero allocations.
// Reference: the same pair on a std::vector of 16-byte records that has
// already grown to that depth (what a textbook stack costs).
// BM_DequePushPop/31 shows what the allocation counter catches: a std::deque
// of 16-byte records frees and reallocates a block on every pair there.

#include <deque>
#include <vector>

#include "benchmark/benchmark.h"
#include "src/execution_stack.h"
#include "test/benchmarks/bench_env.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace {

constexpr int64_t kPairsPerBatch = 100000;

struct Record {
  double async_id;
  double trigger_async_id;
};

void BM_ExecutionStackPushPop(benchmark::State& state) {
  const int64_t depth = state.range(0);
  ExecutionStack stack;
  std::vector<Record> vector;
  for (int64_t i = 0; i < depth; i++) {
    stack.Push(static_cast<double>(100 + i), 1);
    vector.push_back({static_cast<double>(100 + i), 1});
  }
  // Reach the high-water mark once.
  stack.Push(1, 1);
  stack.Pop(1);
  vector.push_back({1, 1});
  vector.pop_back();
  double id = 1e9;
  bench::PairOptions options;
  options.ops_per_batch = kPairsPerBatch;
  options.target_ns = 5;
  state.SetLabel("std::vector<16-byte record> push_back+pop_back");
  bench::RunPaired(
      state, options,
      [&] {
        for (int64_t i = 0; i < kPairsPerBatch; i++) {
          stack.Push(id, 1);
          stack.Pop(id);
          benchmark::DoNotOptimize(stack);
          id++;
        }
      },
      [&] {
        for (int64_t i = 0; i < kPairsPerBatch; i++) {
          vector.push_back({id, 1});
          benchmark::DoNotOptimize(vector.back());
          vector.pop_back();
          benchmark::ClobberMemory();
          id++;
        }
      });
}
BENCHMARK(BM_ExecutionStackPushPop)->Arg(0)->Arg(16)->UseManualTime();

void BM_DequePushPop(benchmark::State& state) {
  const int64_t depth = state.range(0);
  std::deque<Record> deque;
  for (int64_t i = 0; i < depth; i++) {
    deque.push_back({static_cast<double>(100 + i), 1});
  }
  std::vector<Record> vector(static_cast<size_t>(depth));
  double id = 1e9;
  bench::PairOptions options;
  options.ops_per_batch = kPairsPerBatch;
  state.SetLabel("std::vector<16-byte record> push_back+pop_back");
  bench::RunPaired(
      state, options,
      [&] {
        for (int64_t i = 0; i < kPairsPerBatch; i++) {
          deque.push_back({id, 1});
          benchmark::DoNotOptimize(deque.back());
          deque.pop_back();
          benchmark::ClobberMemory();
          id++;
        }
      },
      [&] {
        for (int64_t i = 0; i < kPairsPerBatch; i++) {
          vector.push_back({id, 1});
          benchmark::DoNotOptimize(vector.back());
          vector.pop_back();
          benchmark::ClobberMemory();
          id++;
        }
      });
}
BENCHMARK(BM_DequePushPop)->Arg(31)->UseManualTime();

}  // namespace
}  // namespace asyncctx
