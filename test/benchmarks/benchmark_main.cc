// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Initializes V8 once, runs every registered benchmark, then prints a summary
// table of the ratios (see bench_env.h for what the counters mean):
//
//   out/Default/benchmarks                          everything
//   out/Default/benchmarks --benchmark_filter=Scope one group
//   out/Default/benchmarks --js-flags=--trace-opt   flags for V8
//   out/Default/benchmarks --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true     the summary uses medians
//
// With --benchmark_format=json the summary goes to stderr, so that stdout
// stays machine-readable.

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "test/benchmarks/bench_env.h"
#include "tools/v8_host/v8_host.h"
#include "v8-initialization.h"

namespace asyncctx {
namespace bench {
namespace {

struct SummaryRow {
  std::string name;
  std::string reference;
  double ns = 0;
  double ref_ns = 0;
  double ratio = 0;
  double wall_ratio = 0;
  double target = 0;
  double target_ns = 0;
  double allocs = 0;
  bool from_median = false;
};

// Forwards everything to the display reporter chosen by --benchmark_format
// and keeps the paired counters for the summary.
class SummaryReporter : public benchmark::BenchmarkReporter {
 public:
  explicit SummaryReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner)
      : inner_(std::move(inner)) {}

  bool ReportContext(const Context& context) override {
    return inner_->ReportContext(context);
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    inner_->ReportRuns(runs);
    for (const Run& run : runs) {
      bool is_median =
          run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !is_median)
        continue;
      auto ratio = run.counters.find("ratio");
      if (ratio == run.counters.end())
        continue;
      std::string name = run.run_name.str();
      auto it = index_.find(name);
      if (it == index_.end()) {
        it = index_.emplace(name, rows_.size()).first;
        rows_.emplace_back();
      }
      SummaryRow& row = rows_[it->second];
      // A median aggregate wins over single repetitions.
      if (row.from_median && !is_median)
        continue;
      row.from_median = is_median;
      row.name = name;
      row.reference = run.report_label;
      row.ns = Counter(run, "ns/op");
      row.ref_ns = Counter(run, "ref_ns/op");
      row.ratio = ratio->second.value;
      row.wall_ratio = Counter(run, "wall_ratio");
      row.target = Counter(run, "target");
      row.target_ns = Counter(run, "target_ns");
      row.allocs = Counter(run, "allocs/op");
    }
  }

  void Finalize() override { inner_->Finalize(); }

  void PrintSummary(FILE* out) const {
    if (rows_.empty())
      return;
    std::fprintf(out,
                 "\nSummary: ratio = reference ns/op / our ns/op (1.0 = as "
                 "fast as the reference), process CPU time,\nmedians over "
                 "alternating batches; wall = the same ratio from wall-clock "
                 "time\n\n");
    std::fprintf(out,
                 "| benchmark | ours ns/op | reference | ref ns/op | ratio | "
                 "wall | allocs/op | target | met |\n");
    std::fprintf(out, "|---|---:|---|---:|---:|---:|---:|---|---|\n");
    for (const SummaryRow& row : rows_) {
      std::string target = "-";
      std::string met = "-";
      bool ok = true;
      bool has_target = false;
      char buf[64];
      if (row.target > 0) {
        std::snprintf(buf, sizeof buf, ">= %.2fx", row.target);
        target = buf;
        ok = ok && row.ratio >= row.target;
        has_target = true;
      }
      if (row.target_ns > 0) {
        std::snprintf(buf, sizeof buf, "%s< %.1f ns", has_target ? ", " : "",
                      row.target_ns);
        target = (has_target ? target : "") + buf;
        ok = ok && row.ns < row.target_ns;
        has_target = true;
      }
      if (has_target)
        met = ok ? "yes" : "NO";
      std::string name = row.name;
      const std::string suffix = "/manual_time";
      if (name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) ==
              0) {
        name.resize(name.size() - suffix.size());
      }
      std::fprintf(out,
                   "| %s | %.1f | %s | %.1f | %.2fx | %.2fx | %.3g | %s | %s "
                   "|\n",
                   name.c_str(), row.ns, row.reference.c_str(), row.ref_ns,
                   row.ratio, row.wall_ratio, row.allocs, target.c_str(),
                   met.c_str());
    }
  }

 private:
  static double Counter(const Run& run, const char* name) {
    auto it = run.counters.find(name);
    return it == run.counters.end() ? 0 : it->second.value;
  }

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::map<std::string, size_t> index_;
  std::vector<SummaryRow> rows_;
};

std::string FlagValue(int argc, char** argv, const char* flag) {
  size_t n = std::strlen(flag);
  for (int i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], flag, n) == 0 && argv[i][n] == '=') {
      return argv[i] + n + 1;
    }
  }
  return "";
}

}  // namespace

v8::Platform* Platform() {
  return host::Platform();
}

}  // namespace bench
}  // namespace asyncctx

int main(int argc, char** argv) {
  using asyncctx::bench::FlagValue;
  using asyncctx::bench::SummaryReporter;
  std::string format = FlagValue(argc, argv, "--benchmark_format");
  // --js-flags="..." goes to V8 (e.g. --js-flags=--trace-opt).
  std::string js_flags = FlagValue(argc, argv, "--js-flags");
  int kept = 1;
  for (int i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], "--js-flags=", 11) != 0)
      argv[kept++] = argv[i];
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;

  // RequestGarbageCollectionForTesting() needs --expose-gc.
  v8::V8::SetFlagsFromString("--expose-gc");
  if (!js_flags.empty())
    v8::V8::SetFlagsFromString(js_flags.c_str());
  // V8 and its platform come from the host adapter (tools/v8_host).
  asyncctx::host::InitializeV8(argv[0]);

  std::unique_ptr<benchmark::BenchmarkReporter> display;
  FILE* summary_out = stdout;
  if (format == "json") {
    display = std::make_unique<benchmark::JSONReporter>();
    summary_out = stderr;
  } else {
    display = std::make_unique<benchmark::ConsoleReporter>(
        isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                              : benchmark::ConsoleReporter::OO_Tabular);
  }
  SummaryReporter reporter(std::move(display));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSummary(summary_out);
  std::fflush(summary_out);
  benchmark::Shutdown();

  asyncctx::host::ShutdownV8();
  return 0;
}
