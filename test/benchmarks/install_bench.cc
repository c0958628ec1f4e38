// Copyright 2026 the asyncctx authors. All rights reserved.
//
// What Runtime::Install() adds to making a context, in the isolate's steady
// state (it made and installed contexts before, so V8's per-isolate
// compilation cache and the layer's code cache are warm), as a host that
// makes a context per request or per tenant does (test/isolated_vm/bench.js
// measures the same inside isolated-vm, with its thread crossings).
//
//   Install            ours: v8::Context::New + Install (code_cache on);
//                      reference: v8::Context::New alone.
//                      target >= 0.67 (Install adds at most 50%)
//   InstallNoCodeCache the same with InstallOptions::code_cache off: report
//                      only
//
// Each batch makes kContexts contexts in a HandleScope of its own and drops
// them.
//
// For instruction counts (the machine too busy to time it): with
// ASYNCCTX_INSTALL_BATCHES=N in the environment, BM_Install runs N batches
// of one side only (ASYNCCTX_INSTALL_SIDE=ours or reference) and exits, so
// that `valgrind --tool=cachegrind` at two values of N gives the
// instructions per context of each side (docs/embedding.md, "What Install
// costs"). With ASYNCCTX_INSTALL_HEAP=1 it prints instead the median heap
// bytes (v8::HeapStatistics::used_heap_size) that one v8::Context::New and
// one Install add, over 41 contexts (run it with a new space large enough
// that no scavenge falls inside: node --min-semi-space-size=64
// --max-semi-space-size=64 for the 13.6 and 14.6 builds).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-persistent-handle.h"
#include "v8-statistics.h"

namespace asyncctx {
namespace {

constexpr int kContexts = 20;

void InstallBench(benchmark::State& state,
                  bool code_cache,
                  double target_ratio) {
  bench::JsEnv env;
  v8::Isolate* isolate = env.isolate();
  InstallOptions install;
  install.code_cache = code_cache;
  bool failed = false;
  auto make = [&](bool with_install) {
    v8::Isolate::Scope isolate_scope(isolate);
    v8::HandleScope handle_scope(isolate);
    for (int i = 0; i < kContexts; i++) {
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      if (with_install &&
          !env.runtime()->Install(context, install).FromMaybe(false)) {
        failed = true;
      }
    }
  };
  auto ours = [&] { make(true); };
  auto reference = [&] { make(false); };
  if (std::getenv("ASYNCCTX_INSTALL_HEAP") != nullptr) {
    std::vector<double> context_bytes;
    std::vector<double> install_bytes;
    auto used = [isolate] {
      v8::HeapStatistics statistics;
      isolate->GetHeapStatistics(&statistics);
      return static_cast<double>(statistics.used_heap_size());
    };
    for (int i = 0; i < 41; i++) {
      v8::Isolate::Scope isolate_scope(isolate);
      v8::HandleScope handle_scope(isolate);
      double before = used();
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      double made = used();
      if (!env.runtime()->Install(context, install).FromMaybe(false))
        failed = true;
      context_bytes.push_back(made - before);
      install_bytes.push_back(used() - made);
    }
    std::printf("heap bytes: v8::Context::New %.0f, Install %.0f\n",
                bench::Median(context_bytes), bench::Median(install_bytes));
    std::exit(failed ? 1 : 0);
  }
  if (const char* batches = std::getenv("ASYNCCTX_INSTALL_BATCHES")) {
    const char* side = std::getenv("ASYNCCTX_INSTALL_SIDE");
    bool run_ours = side != nullptr && std::string(side) == "ours";
    for (int i = 0; i < std::atoi(batches); i++)
      run_ours ? ours() : reference();
    std::exit(failed ? 1 : 0);
  }
  for (int warm = 0; warm < 3; warm++) {
    ours();
    reference();
  }
  if (failed) {
    state.SkipWithError("Install() failed");
    return;
  }
  bench::PairOptions options;
  options.ops_per_batch = kContexts;
  options.target_ratio = target_ratio;
  state.SetLabel("v8::Context::New alone");
  bench::RunPaired(state, options, ours, reference);
  if (failed)
    state.SkipWithError("Install() failed");
}

void BM_Install(benchmark::State& state) {
  InstallBench(state, true, 0.67);
}
BENCHMARK(BM_Install)->UseManualTime();

void BM_InstallNoCodeCache(benchmark::State& state) {
  InstallBench(state, false, 0);
}
BENCHMARK(BM_InstallNoCodeCache)->UseManualTime();

// A host task in an isolate with kManyContexts installed contexts, against
// the same task in an isolate with one: a call from C++ (policy kAuto, so
// V8 checkpoints at its end) with RuntimeOptions::host_checkpoints, as
// isolated-vm makes for every eval and apply. What the runtime does at a
// task's end and at a checkpoint (the root frame, pending destroys, the
// checkpoint generation) must not walk every installed context: target
// >= 0.9x.
constexpr int kManyContexts = 1000;
constexpr int kTasks = 200;

void BM_HostTaskWithManyContexts(benchmark::State& state) {
  RuntimeOptions options;
  options.host_checkpoints = true;
  bench::JsEnv many(true, options);
  bench::JsEnv one(true, options);
  std::vector<v8::Global<v8::Context>> kept;
  bool failed = false;
  {
    v8::Isolate* isolate = many.isolate();
    v8::Isolate::Scope isolate_scope(isolate);
    v8::HandleScope handle_scope(isolate);
    for (int i = 0; i < kManyContexts; i++) {
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      if (!many.runtime()->Install(context, InstallOptions()).FromMaybe(false))
        failed = true;
      kept.emplace_back(isolate, context);
    }
  }
  auto task_of = [](bench::JsEnv& env) {
    env.isolate()->SetMicrotasksPolicy(v8::MicrotasksPolicy::kAuto);
    env.Run("globalThis.task = function task() { return 1; };");
    bench::JsEnv::Scope scope(env);
    v8::Local<v8::Context> context = env.context();
    v8::Local<v8::Value> fn = context->Global()
                                  ->Get(context, v8::String::NewFromUtf8Literal(
                                                     env.isolate(), "task"))
                                  .ToLocalChecked();
    return v8::Global<v8::Function>(env.isolate(), fn.As<v8::Function>());
  };
  v8::Global<v8::Function> many_task = task_of(many);
  v8::Global<v8::Function> one_task = task_of(one);
  auto run = [&](bench::JsEnv& env, v8::Global<v8::Function>& task) {
    bench::JsEnv::Scope scope(env);
    v8::Isolate* isolate = env.isolate();
    v8::Local<v8::Context> context = env.context();
    v8::Local<v8::Function> fn = task.Get(isolate);
    for (int i = 0; i < kTasks; i++) {
      if (fn->Call(context, v8::Undefined(isolate), 0, nullptr).IsEmpty())
        failed = true;
    }
  };
  auto ours = [&] { run(many, many_task); };
  auto reference = [&] { run(one, one_task); };
  for (int warm = 0; warm < 3; warm++) {
    ours();
    reference();
  }
  if (failed) {
    state.SkipWithError("Install() or the task failed");
    return;
  }
  bench::PairOptions pair;
  pair.ops_per_batch = kTasks;
  pair.target_ratio = 0.9;
  state.SetLabel("the same task with 1 context installed");
  bench::RunPaired(state, pair, ours, reference);
  many_task.Reset();
  one_task.Reset();
  kept.clear();
}
BENCHMARK(BM_HostTaskWithManyContexts)->UseManualTime();

}  // namespace
}  // namespace asyncctx
