// Copyright 2026 the asyncctx authors. All rights reserved.
//
// queueMicrotask, in the shapes of Node.js's
// benchmark/process/queue-microtask-breadth.js (n = 4e5, all queued from one
// loop) and queue-microtask-depth.js (n = 1.2e6, each callback queues the
// next). Each batch is Script::Run plus the microtask checkpoint that runs
// the callbacks. The reference, in the same isolate, is the floor: the same
// shape with benchNatives.enqueueMicrotask, a bare native binding over
// Isolate::EnqueueMicrotask.
//
//   Breadth / Depth               no store, no hook       target >= 0.9x
//   BreadthInRun / DepthInRun     inside als.run          target >= 0.5x
//   BreadthInitHook / DepthInitHook
//                                 createHook({init() {}}) enabled, no store:
//                                 report only

#include <string>

#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"

namespace asyncctx {
namespace {

constexpr int64_t kBreadth = 400000;
constexpr int64_t kDepth = 1200000;

const char kSources[] = R"js(
'use strict';
const als = new AsyncLocalStorage();
const enqueue = benchNatives.enqueueMicrotask;
let count = 0;
function cb() { count++; }
function breadth(n) { for (let i = 0; i < n; i++) queueMicrotask(cb); }
function breadthNative(n) { for (let i = 0; i < n; i++) enqueue(cb); }
function breadthInRun(n) { als.run({}, breadth, n); }

let remaining = 0;
function depthCb() {
  count++;
  if (--remaining > 0) queueMicrotask(depthCb);
}
function depthNativeCb() {
  count++;
  if (--remaining > 0) enqueue(depthNativeCb);
}
function depth(n) { remaining = n; queueMicrotask(depthCb); }
function depthNative(n) { remaining = n; enqueue(depthNativeCb); }
function depthInRun(n) { als.run({}, depth, n); }
)js";

enum class Setup { kPlain, kInRun, kInitHook };

void MicrotaskBench(benchmark::State& state,
                    bool is_depth,
                    Setup setup,
                    double target_ratio) {
  const int64_t n = is_depth ? kDepth : kBreadth;
  bench::JsEnv env;
  env.Run(kSources);
  if (setup == Setup::kInitHook) {
    env.Run("asyncHooks.createHook({init() {}}).enable();");
  }
  const char* ours_fn = is_depth ? "depth" : "breadth";
  if (setup == Setup::kInRun)
    ours_fn = is_depth ? "depthInRun" : "breadthInRun";
  const char* reference_fn = is_depth ? "depthNative" : "breadthNative";
  int ours = env.Compile(std::string(ours_fn) + "(" + std::to_string(n) + ")");
  int reference =
      env.Compile(std::string(reference_fn) + "(" + std::to_string(n) + ")");
  auto run_ours = [&] {
    env.RunCompiled(ours);
    env.PumpTasks();
  };
  auto run_reference = [&] {
    env.RunCompiled(reference);
    env.PumpTasks();
  };
  env.Run("count = 0;");
  for (int warm = 0; warm < 2; warm++) {
    run_ours();
    run_reference();
  }
  if (env.RunNumber("count") != static_cast<double>(4 * n)) {
    state.SkipWithError("not every microtask ran");
    return;
  }
  bench::PairOptions options;
  options.ops_per_batch = n;
  options.target_ratio = target_ratio;
  state.SetLabel(std::string("same shape with benchNatives.enqueueMicrotask") +
                 " (bare EnqueueMicrotask)");
  bench::RunPaired(state, options, run_ours, run_reference);
}

void BM_QueueMicrotaskBreadth(benchmark::State& state) {
  MicrotaskBench(state, false, Setup::kPlain, 0.9);
}
BENCHMARK(BM_QueueMicrotaskBreadth)->UseManualTime();

void BM_QueueMicrotaskDepth(benchmark::State& state) {
  MicrotaskBench(state, true, Setup::kPlain, 0.9);
}
BENCHMARK(BM_QueueMicrotaskDepth)->UseManualTime();

void BM_QueueMicrotaskBreadthInRun(benchmark::State& state) {
  MicrotaskBench(state, false, Setup::kInRun, 0.5);
}
BENCHMARK(BM_QueueMicrotaskBreadthInRun)->UseManualTime();

void BM_QueueMicrotaskDepthInRun(benchmark::State& state) {
  MicrotaskBench(state, true, Setup::kInRun, 0.5);
}
BENCHMARK(BM_QueueMicrotaskDepthInRun)->UseManualTime();

void BM_QueueMicrotaskBreadthInitHook(benchmark::State& state) {
  MicrotaskBench(state, false, Setup::kInitHook, 0);
}
BENCHMARK(BM_QueueMicrotaskBreadthInitHook)->UseManualTime();

void BM_QueueMicrotaskDepthInitHook(benchmark::State& state) {
  MicrotaskBench(state, true, Setup::kInitHook, 0);
}
BENCHMARK(BM_QueueMicrotaskDepthInitHook)->UseManualTime();

}  // namespace
}  // namespace asyncctx
