// Copyright 2026 the asyncctx authors. All rights reserved.
//
// `new AsyncResource('X')` from JavaScript, in loops run by Script::Run and
// timed in C++ (the hook cases follow Node.js's
// benchmark/async_hooks/gc-tracking.js):
//
//   NoHook        vs `new benchNatives.EmptyConstructor('X')`, a
//                 FunctionTemplate whose callback does nothing, same isolate
//                                                       target >= 0.7x
//   InitHook      createHook({init() {}}) enabled, vs the no-hook case in
//                 its own isolate; no resource may be GC-tracked
//                                                       target >= 0.8x
//   DestroyHook   createHook({destroy() {}}) enabled: the loop, a full GC
//                 and the destroy emission for every resource, vs the
//                 no-hook loop plus the same GC         target >= 0.2x
//   DestroyHookManual  as DestroyHook with {requireManualDestroy: true}
//                 (Node's "trackingDisabled"): report only
//
// Each construction is stored to a script-level variable so that TurboFan
// cannot drop the allocation (escape analysis); both sides pay that store.

#include <string>

#include "asyncctx/testing.h"
#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"

namespace asyncctx {
namespace {

constexpr int64_t kConstructions = 1000000;
constexpr int64_t kTrackedConstructions = 200000;

const char kLoops[] = R"js(
'use strict';
const EmptyNative = benchNatives.EmptyConstructor;
let sink;
function constructAsyncResource(n) {
  for (let i = 0; i < n; i++) sink = new AsyncResource('X');
}
function constructManualDestroy(n) {
  const options = {requireManualDestroy: true};
  for (let i = 0; i < n; i++) sink = new AsyncResource('X', options);
}
function constructEmptyNative(n) {
  for (let i = 0; i < n; i++) sink = new EmptyNative('X');
}
function dropSink() { sink = undefined; }
)js";

std::string Call(const char* function, int64_t n) {
  return std::string(function) + "(" + std::to_string(n) + "); dropSink();";
}

void BM_NewAsyncResourceNoHook(benchmark::State& state) {
  bench::JsEnv env;
  env.Run(kLoops);
  int ours = env.Compile(Call("constructAsyncResource", kConstructions));
  int reference = env.Compile(Call("constructEmptyNative", kConstructions));
  for (int warm = 0; warm < 2; warm++) {
    env.RunCompiled(ours);
    env.RunCompiled(reference);
  }
  bench::PairOptions options;
  options.ops_per_batch = kConstructions;
  options.target_ratio = 0.7;
  state.SetLabel("new benchNatives.EmptyConstructor('X') (empty native)");
  bench::RunPaired(
      state, options, [&] { env.RunCompiled(ours); },
      [&] { env.RunCompiled(reference); });
}
BENCHMARK(BM_NewAsyncResourceNoHook)->UseManualTime();

void BM_NewAsyncResourceInitHook(benchmark::State& state) {
  bench::JsEnv hooked;
  bench::JsEnv plain;
  hooked.Run(kLoops);
  plain.Run(kLoops);
  // Time an empty hook; check in another isolate (so that
  // the hook call site stays monomorphic here) that a hook sees every
  // construction.
  double init_calls;
  {
    bench::JsEnv check;
    check.Run(kLoops);
    init_calls = check.RunNumber(
        "let initCalls = 0;"
        "asyncHooks.createHook({init() { initCalls++; }}).enable();"
        "constructAsyncResource(1000); initCalls");
  }
  hooked.Run("asyncHooks.createHook({init() {}}).enable();");
  int ours = hooked.Compile(Call("constructAsyncResource", kConstructions));
  int reference = plain.Compile(Call("constructAsyncResource", kConstructions));
  for (int warm = 0; warm < 2; warm++) {
    hooked.RunCompiled(ours);
    plain.RunCompiled(reference);
  }
  bench::PairOptions options;
  options.ops_per_batch = kConstructions;
  options.target_ratio = 0.8;
  state.SetLabel("new AsyncResource('X'), no hook");
  bench::RunPaired(
      state, options, [&] { hooked.RunCompiled(ours); },
      [&] { plain.RunCompiled(reference); });
  state.counters["tracked"] = static_cast<double>(
      RuntimeTesting::TrackedResourceCount(*hooked.runtime()));
  state.counters["inits/op"] = init_calls / 1000;
}
BENCHMARK(BM_NewAsyncResourceInitHook)->UseManualTime();

void DestroyHookBench(benchmark::State& state, const char* constructor) {
  bench::JsEnv hooked;
  bench::JsEnv plain;
  hooked.Run(kLoops);
  plain.Run(kLoops);
  hooked.Run(
      "globalThis.destroyCalls = 0;"
      "asyncHooks.createHook({destroy() { destroyCalls++; }}).enable();");
  int ours = hooked.Compile(Call(constructor, kTrackedConstructions));
  int reference =
      plain.Compile(Call("constructAsyncResource", kTrackedConstructions));
  auto run_ours = [&] {
    hooked.RunCompiled(ours);
    hooked.CollectGarbageAndPump();
  };
  auto run_reference = [&] {
    plain.RunCompiled(reference);
    plain.CollectGarbageAndPump();
  };
  run_ours();
  run_reference();
  hooked.Run("destroyCalls = 0;");
  bench::PairOptions options;
  options.ops_per_batch = kTrackedConstructions;
  state.SetLabel("new AsyncResource('X'), no hook, + the same full GC");
  double max_tracked = 0;
  bench::RunPaired(
      state, options,
      [&] {
        hooked.RunCompiled(ours);
        max_tracked = std::max(
            max_tracked,
            static_cast<double>(
                RuntimeTesting::TrackedResourceCount(*hooked.runtime())));
        hooked.CollectGarbageAndPump();
      },
      run_reference);
  state.counters["tracked_peak"] = max_tracked;
  state.counters["tracked_after"] = static_cast<double>(
      RuntimeTesting::TrackedResourceCount(*hooked.runtime()));
  state.counters["destroys/op"] =
      hooked.RunNumber("destroyCalls") /
      static_cast<double>(state.iterations() * kTrackedConstructions);
}

void BM_NewAsyncResourceDestroyHook(benchmark::State& state) {
  DestroyHookBench(state, "constructAsyncResource");
  state.counters["target"] = 0.2;
}
BENCHMARK(BM_NewAsyncResourceDestroyHook)->UseManualTime();

void BM_NewAsyncResourceDestroyHookManual(benchmark::State& state) {
  DestroyHookBench(state, "constructManualDestroy");
}
BENCHMARK(BM_NewAsyncResourceDestroyHookManual)->UseManualTime();

}  // namespace
}  // namespace asyncctx
