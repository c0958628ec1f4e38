// Copyright 2026 the asyncctx authors. All rights reserved.
//
// CallbackScope: what a host pays to run one callback on behalf of an
// asyncctx::AsyncResource (push the execution stack, enter the resource's
// frame, restore both; with kRun also the outermost microtask checkpoint),
// against calling the same empty native function with no scope.
//
// No target: reported for orientation. The reference is the
// floor (Function::Call of a native function that does nothing, from C++).

#include "asyncctx/asyncctx.h"
#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-template.h"

namespace asyncctx {
namespace {

constexpr int64_t kCallsPerBatch = 20000;

void EmptyCallback(const v8::FunctionCallbackInfo<v8::Value>&) {}

void CallbackScopeBench(benchmark::State& state,
                        CallbackScope::Checkpoint checkpoint) {
  bench::JsEnv env;
  bench::JsEnv::Scope scope(env);
  v8::Isolate* isolate = env.isolate();
  v8::Local<v8::Context> context = env.context();
  v8::Local<v8::Function> fn =
      v8::Function::New(context, EmptyCallback).ToLocalChecked();
  v8::Local<v8::Value> recv = v8::Undefined(isolate);
  AsyncResource resource(context, "BenchCallback");

  auto ours = [&] {
    for (int64_t i = 0; i < kCallsPerBatch; i++) {
      v8::HandleScope handle_scope(isolate);
      CallbackScope callback_scope(&resource, checkpoint);
      benchmark::DoNotOptimize(fn->Call(context, recv, 0, nullptr));
    }
  };
  auto reference = [&] {
    for (int64_t i = 0; i < kCallsPerBatch; i++) {
      v8::HandleScope handle_scope(isolate);
      benchmark::DoNotOptimize(fn->Call(context, recv, 0, nullptr));
    }
  };
  ours();
  reference();
  bench::PairOptions options;
  options.ops_per_batch = kCallsPerBatch;
  state.SetLabel("Function::Call of an empty native function, no scope");
  bench::RunPaired(state, options, ours, reference);
  state.counters["stack_depth_after"] =
      static_cast<double>(env.runtime()->ExecutionStackDepth());
}

void BM_CallbackScopeSkipCheckpoint(benchmark::State& state) {
  CallbackScopeBench(state, CallbackScope::Checkpoint::kSkip);
}
BENCHMARK(BM_CallbackScopeSkipCheckpoint)->UseManualTime();

void BM_CallbackScopeRunCheckpoint(benchmark::State& state) {
  CallbackScopeBench(state, CallbackScope::Checkpoint::kRun);
}
BENCHMARK(BM_CallbackScopeRunCheckpoint)->UseManualTime();

}  // namespace
}  // namespace asyncctx
