// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncLocalStorage from JavaScript, in loops run by Script::Run and timed
// in C++, against the floors of the targets, measured in the same isolate:
//
//   GetStore          als.getStore() inside als.run, vs a call of an empty
//                     native function (the floor)      target >= 0.33x
//   GetStoreRoot      the same at the root frame (no store): report only
//   Run               als.run(store, emptyFn), vs the empty native call;
//                     Node 18 on this V8 takes 33 ns   target < 33 ns
//   RunGetStore       als.run(store, () => als.getStore()); Node 24's shape
//                     takes ~850 ns                    target < 85 ns
//
// 1e5 awaits (each `await i` in an async function) inside als.run, against
// 1e5 awaits with no store in an isolate where no store was ever entered
// (the promise hooks of the thenable repair are installed from the first
// non-root frame on, so the baseline must never have entered one). Each
// batch is Script::Run plus the microtask checkpoint that runs the awaits:
//
//   AwaitInRun               thenable repair on (default)   target >= 0.30x
//   AwaitInRunRepairOff      RuntimeOptions::thenable_repair = false
//                                                           target >= 0.9x
//   AwaitNested10            10 nested stores, repair on    target >= 0.30x
//   AwaitNested10RepairOff   10 nested stores, repair off   target >= 0.9x
//   AwaitNoStoreRepairActive no store, but after one als.run (the hooks stay
//                            installed): report only

#include <string>

#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"

namespace asyncctx {
namespace {

constexpr int64_t kCalls = 1000000;
constexpr int64_t kAwaits = 100000;

const char kSources[] = R"js(
'use strict';
const als = new AsyncLocalStorage();
const emptyFunction = benchNatives.emptyFunction;
let sink;
function noop() {}
function getStoreOnce() { return als.getStore(); }

function getStoreLoop(n) {
  let s;
  for (let i = 0; i < n; i++) s = als.getStore();
  sink = s;
}
function getStoreInRun(n) { als.run({}, getStoreLoop, n); }
function emptyNativeLoop(n) {
  for (let i = 0; i < n; i++) emptyFunction();
}
function runLoop(n) {
  const store = {};
  for (let i = 0; i < n; i++) als.run(store, noop);
}
function runGetStoreLoop(n) {
  const store = {};
  let s;
  for (let i = 0; i < n; i++) s = als.run(store, getStoreOnce);
  sink = s;
}

let awaitsDone = 0;
async function awaitLoop(n) {
  for (let i = 0; i < n; i++) await i;
  awaitsDone += n;
}
function awaitsNoStore(n) { awaitLoop(n); }
function awaitsInRun(n) { als.run({}, awaitLoop, n); }
const nestedStores = Array.from({length: 10}, () => new AsyncLocalStorage());
function nested(n, k) {
  if (k === nestedStores.length) return awaitLoop(n);
  return nestedStores[k].run(k, nested, n, k + 1);
}
function awaitsNested10(n) { nested(n, 0); }
)js";

std::string Call(const char* function, int64_t n) {
  return std::string(function) + "(" + std::to_string(n) + ");";
}

// A loop in one isolate against the empty-native loop in the same isolate.
void SyncVsFloor(benchmark::State& state,
                 const char* function,
                 double target_ratio,
                 double target_ns) {
  bench::JsEnv env;
  env.Run(kSources);
  int ours = env.Compile(Call(function, kCalls));
  int reference = env.Compile(Call("emptyNativeLoop", kCalls));
  for (int warm = 0; warm < 2; warm++) {
    env.RunCompiled(ours);
    env.RunCompiled(reference);
  }
  bench::PairOptions options;
  options.ops_per_batch = kCalls;
  options.target_ratio = target_ratio;
  options.target_ns = target_ns;
  state.SetLabel("benchNatives.emptyFunction() (empty native call)");
  bench::RunPaired(
      state, options, [&] { env.RunCompiled(ours); },
      [&] { env.RunCompiled(reference); });
}

void BM_AlsGetStore(benchmark::State& state) {
  SyncVsFloor(state, "getStoreInRun", 1.0 / 3, 0);
}
BENCHMARK(BM_AlsGetStore)->UseManualTime();

void BM_AlsGetStoreRoot(benchmark::State& state) {
  SyncVsFloor(state, "getStoreLoop", 0, 0);
}
BENCHMARK(BM_AlsGetStoreRoot)->UseManualTime();

void BM_AlsRun(benchmark::State& state) {
  SyncVsFloor(state, "runLoop", 0, 33);
}
BENCHMARK(BM_AlsRun)->UseManualTime();

void BM_AlsRunGetStore(benchmark::State& state) {
  SyncVsFloor(state, "runGetStoreLoop", 0, 85);
}
BENCHMARK(BM_AlsRunGetStore)->UseManualTime();

enum class AwaitShape { kInRun, kNested10, kNoStoreRepairActive };

void AwaitBench(benchmark::State& state,
                AwaitShape shape,
                bool repair,
                double target_ratio) {
  RuntimeOptions options_ours;
  options_ours.thenable_repair = repair;
  bench::JsEnv ours_env(true, options_ours);
  bench::JsEnv baseline_env;
  ours_env.Run(kSources);
  baseline_env.Run(kSources);
  const char* function = "awaitsInRun";
  if (shape == AwaitShape::kNested10)
    function = "awaitsNested10";
  if (shape == AwaitShape::kNoStoreRepairActive) {
    ours_env.Run("als.run(1, noop);");
    function = "awaitsNoStore";
  }
  int ours = ours_env.Compile(Call(function, kAwaits));
  int reference = baseline_env.Compile(Call("awaitsNoStore", kAwaits));
  auto run_ours = [&] {
    ours_env.RunCompiled(ours);
    ours_env.PumpTasks();
  };
  auto run_reference = [&] {
    baseline_env.RunCompiled(reference);
    baseline_env.PumpTasks();
  };
  for (int warm = 0; warm < 2; warm++) {
    run_ours();
    run_reference();
  }
  if (ours_env.RunNumber("awaitsDone") != 2 * kAwaits ||
      baseline_env.RunNumber("awaitsDone") != 2 * kAwaits) {
    state.SkipWithError("the awaits did not all complete");
    return;
  }
  bench::PairOptions options;
  options.ops_per_batch = kAwaits;
  options.target_ratio = target_ratio;
  state.SetLabel("1e5 awaits, no store, no store ever entered");
  bench::RunPaired(state, options, run_ours, run_reference);
}

void BM_AwaitInRun(benchmark::State& state) {
  AwaitBench(state, AwaitShape::kInRun, true, 0.30);
}
BENCHMARK(BM_AwaitInRun)->UseManualTime();

void BM_AwaitInRunRepairOff(benchmark::State& state) {
  AwaitBench(state, AwaitShape::kInRun, false, 0.9);
}
BENCHMARK(BM_AwaitInRunRepairOff)->UseManualTime();

void BM_AwaitNested10(benchmark::State& state) {
  AwaitBench(state, AwaitShape::kNested10, true, 0.30);
}
BENCHMARK(BM_AwaitNested10)->UseManualTime();

void BM_AwaitNested10RepairOff(benchmark::State& state) {
  AwaitBench(state, AwaitShape::kNested10, false, 0.9);
}
BENCHMARK(BM_AwaitNested10RepairOff)->UseManualTime();

void BM_AwaitNoStoreRepairActive(benchmark::State& state) {
  AwaitBench(state, AwaitShape::kNoStoreRepairActive, true, 0);
}
BENCHMARK(BM_AwaitNoStoreRepairActive)->UseManualTime();

}  // namespace
}  // namespace asyncctx
