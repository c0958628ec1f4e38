// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Shared machinery of the benchmark binary (//test:benchmarks).
//
// Every benchmark here is a pair: the operation we care about ("ours") and a
// reference measured in the same run, in alternating batches, so that a noisy
// 2-core machine moves both sides together. The published number is the
// ratio
//
//     ratio = reference time per op / our time per op
//
// (1.0: as fast as the reference; 0.7: we take 1/0.7 = 1.43x its time), the
// median over all measured batch pairs. Times are process CPU time (see
// ProcessCpuSeconds()). RunPaired() sets these counters on the benchmark,
// and benchmark_main.cc prints a summary table of them after all benchmarks
// ran:
//
//   ns/op      ours, median over batches
//   ref_ns/op  the reference, median over batches
//   ratio      median of the per-pair ratios
//   wall_ratio the same from wall-clock time
//   target     the target ratio (0: no target, report only)
//   target_ns  an absolute target for ns/op, where one is given (else 0)
//   allocs/op  operator new calls on the benchmark thread per op of ours
//
// The benchmark's label names the reference.

#ifndef ASYNCCTX_TEST_BENCHMARKS_BENCH_ENV_H_
#define ASYNCCTX_TEST_BENCHMARKS_BENCH_ENV_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "benchmark/benchmark.h"
#include "v8-context.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"
#include "v8-platform.h"
#include "v8-script.h"

namespace asyncctx {
namespace bench {

// The process-wide V8 platform (initialized by benchmark_main.cc).
v8::Platform* Platform();

// Number of operator new calls (any form) made by the calling thread so far
// (alloc_counter.cc replaces the global operator new for this binary).
// Allocations V8 makes with malloc directly are not seen.
uint64_t ThreadAllocations();

inline double NowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time of the whole process (every thread, V8's GC and compiler helpers
// included). Unlike wall time it does not grow while other processes hold
// the CPU, which on a shared 2-core machine is most of the noise.
inline double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct PairOptions {
  // Operations performed by one call of each batch function.
  int64_t ops_per_batch = 1;
  // Target for `ratio` (0: none).
  double target_ratio = 0;
  // Absolute target for ns/op of ours (0: none).
  double target_ns = 0;
};

double Median(std::vector<double> values);

// Measures `ours` and `reference` (each a callable performing
// options.ops_per_batch operations) in alternating order, one pair per
// benchmark iteration, and sets the counters described at the top of this
// file from process CPU time; `wall_ratio` is the same ratio from wall time.
// The benchmark must be registered with ->UseManualTime(): the reported
// iteration time is the wall time of one batch of ours.
template <typename Ours, typename Reference>
void RunPaired(benchmark::State& state,
               const PairOptions& options,
               Ours&& ours,
               Reference&& reference) {
  std::vector<double> ours_ns;
  std::vector<double> ref_ns;
  std::vector<double> ratios;
  std::vector<double> wall_ratios;
  uint64_t allocations = 0;
  bool reference_first = false;
  const double ops = static_cast<double>(options.ops_per_batch);
  for (auto _ : state) {
    double ours_cpu = 0;
    double ours_wall = 0;
    double ref_cpu = 0;
    double ref_wall = 0;
    auto time_ours = [&] {
      uint64_t allocs_before = ThreadAllocations();
      double cpu = ProcessCpuSeconds();
      double wall = NowSeconds();
      ours();
      ours_wall = NowSeconds() - wall;
      ours_cpu = ProcessCpuSeconds() - cpu;
      allocations += ThreadAllocations() - allocs_before;
    };
    auto time_reference = [&] {
      double cpu = ProcessCpuSeconds();
      double wall = NowSeconds();
      reference();
      ref_wall = NowSeconds() - wall;
      ref_cpu = ProcessCpuSeconds() - cpu;
    };
    if (reference_first) {
      time_reference();
      time_ours();
    } else {
      time_ours();
      time_reference();
    }
    reference_first = !reference_first;
    state.SetIterationTime(ours_wall);
    ours_ns.push_back(ours_cpu * 1e9 / ops);
    ref_ns.push_back(ref_cpu * 1e9 / ops);
    ratios.push_back(ref_cpu / ours_cpu);
    wall_ratios.push_back(ref_wall / ours_wall);
  }
  const double pairs = static_cast<double>(ratios.size());
  state.counters["ns/op"] = Median(ours_ns);
  state.counters["ref_ns/op"] = Median(ref_ns);
  state.counters["ratio"] = Median(ratios);
  state.counters["wall_ratio"] = Median(wall_ratios);
  state.counters["target"] = options.target_ratio;
  state.counters["target_ns"] = options.target_ns;
  state.counters["allocs/op"] =
      pairs > 0 ? static_cast<double>(allocations) / (pairs * ops) : 0;
  state.SetItemsProcessed(state.iterations() * options.ops_per_batch);
}

// One isolate (microtask policy kExplicit) with one context, into which
// asyncctx is installed unless `install` is false (then no Runtime exists
// for the isolate at all). Every context also gets the reference natives
// (the floors the targets are measured against) on a global `benchNatives`,
// named as the shell names them for test/benchmarks/js/:
//
//   benchNatives.emptyFunction      a native function that does nothing
//   benchNatives.EmptyConstructor   a FunctionTemplate whose callback does
//                                   nothing, for `new`
//   benchNatives.enqueueMicrotask   Isolate::EnqueueMicrotask(fn), nothing
//                                   else
//
// Each environment is its own isolate, so garbage and GC work of one
// benchmark never land on another.
class JsEnv {
 public:
  explicit JsEnv(bool install = true, RuntimeOptions options = {});
  ~JsEnv();

  JsEnv(const JsEnv&) = delete;
  JsEnv& operator=(const JsEnv&) = delete;

  v8::Isolate* isolate() const { return isolate_; }
  // Null when not installed.
  Runtime* runtime() const { return runtime_.get(); }
  v8::Local<v8::Context> context() const { return context_.Get(isolate_); }

  // Enters the isolate, a HandleScope and the context.
  class Scope {
   public:
    explicit Scope(JsEnv& env)
        : isolate_scope_(env.isolate()),
          handle_scope_(env.isolate()),
          context_scope_(env.context()) {}

   private:
    v8::Isolate::Scope isolate_scope_;
    v8::HandleScope handle_scope_;
    v8::Context::Scope context_scope_;
  };

  // Runs `source` as a classic script (entering everything itself). A thrown
  // exception is fatal: it is printed and the process exits.
  void Run(const std::string& source);
  // Runs `source` and returns its result as a number.
  double RunNumber(const std::string& source);

  // Compiles `source` once for repeated runs with RunCompiled().
  int Compile(const std::string& source);
  void RunCompiled(int script);

  // A full garbage collection, then every pending platform task
  // (FinalizationRegistry cleanup, destroy emission) and microtask.
  void CollectGarbageAndPump();
  // Runs pending platform tasks and the microtask checkpoint.
  void PumpTasks();

 private:
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_;
  std::unique_ptr<Runtime> runtime_;
  v8::Global<v8::Context> context_;
  std::vector<v8::Global<v8::Script>> scripts_;
};

}  // namespace bench
}  // namespace asyncctx

#endif  // ASYNCCTX_TEST_BENCHMARKS_BENCH_ENV_H_
