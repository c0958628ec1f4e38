// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Promise creation (`new Promise(executor)` in a loop run by Script::Run)
// in a context where asyncctx is installed, against an isolate where it is
// not (with no hook enabled, creating a promise costs what it costs without
// the library; target ~1.0x, checked as >= 0.95x).
//
// Report-only variants show what installs V8 promise hooks:
//   RepairActive   after one als.run(): the thenable repair's promise hooks
//                  are installed from then on (RuntimeOptions default)
//   RepairOff      the same with RuntimeOptions::thenable_repair = false
//   InitHook       createHook({init() {}}) enabled: a PROMISE init per promise

#include <string>

#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"

namespace asyncctx {
namespace {

constexpr int64_t kPromises = 1000000;

const char kLoops[] = R"js(
'use strict';
let sink;
function executor(resolve) {}
function createPromises(n) {
  for (let i = 0; i < n; i++) sink = new Promise(executor);
}
function dropSink() { sink = undefined; }
)js";

const char kCall[] = "createPromises(1000000); dropSink();";

enum class Variant { kNoHook, kRepairActive, kRepairOff, kInitHook };

void PromiseBench(benchmark::State& state, Variant variant) {
  RuntimeOptions runtime_options;
  if (variant == Variant::kRepairOff)
    runtime_options.thenable_repair = false;
  bench::JsEnv installed(true, runtime_options);
  bench::JsEnv bare(false);
  installed.Run(kLoops);
  bare.Run(kLoops);
  switch (variant) {
    case Variant::kNoHook:
      break;
    case Variant::kRepairActive:
    case Variant::kRepairOff:
      installed.Run("new AsyncLocalStorage().run(1, () => {});");
      break;
    case Variant::kInitHook:
      installed.Run("asyncHooks.createHook({init() {}}).enable();");
      break;
  }
  int ours = installed.Compile(kCall);
  int reference = bare.Compile(kCall);
  for (int warm = 0; warm < 2; warm++) {
    installed.RunCompiled(ours);
    bare.RunCompiled(reference);
  }
  bench::PairOptions options;
  options.ops_per_batch = kPromises;
  if (variant == Variant::kNoHook || variant == Variant::kRepairOff) {
    options.target_ratio = 0.95;
  }
  state.SetLabel("new Promise(executor), asyncctx not installed");
  bench::RunPaired(
      state, options, [&] { installed.RunCompiled(ours); },
      [&] { bare.RunCompiled(reference); });
}

void BM_PromiseNoHook(benchmark::State& state) {
  PromiseBench(state, Variant::kNoHook);
}
BENCHMARK(BM_PromiseNoHook)->UseManualTime();

void BM_PromiseRepairActive(benchmark::State& state) {
  PromiseBench(state, Variant::kRepairActive);
}
BENCHMARK(BM_PromiseRepairActive)->UseManualTime();

void BM_PromiseRepairOff(benchmark::State& state) {
  PromiseBench(state, Variant::kRepairOff);
}
BENCHMARK(BM_PromiseRepairOff)->UseManualTime();

void BM_PromiseInitHook(benchmark::State& state) {
  PromiseBench(state, Variant::kInitHook);
}
BENCHMARK(BM_PromiseInitHook)->UseManualTime();

}  // namespace
}  // namespace asyncctx
