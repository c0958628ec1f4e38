// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Shell: everything the shell keeps for its one isolate, and the order in
// which a run happens:
//
//   1. each file runs as a classic script, or as an ES module (modules.h),
//      followed by a microtask checkpoint (Runtime::RunMicrotasks);
//   2. the event loop runs until it drains;
//   3. 'beforeunload' listeners run; if they scheduled ref'd work, back to 2;
//   4. 'unload' listeners run once;
//   5. the exit code is 0, or 1 if any error was fatal (which also ends the
//      run at once, skipping the later steps, as Node.js exits on one), or
//      13 if a module's top-level await never settled.
//
// Teardown order: the loop's timers (their AsyncResources), the globals'
// state, the context, then the asyncctx runtime; the caller disposes the
// isolate afterwards.

#ifndef TOOLS_SHELL_SHELL_H_
#define TOOLS_SHELL_SHELL_H_

#include <memory>
#include <string>
#include <vector>

#include "asyncctx/runtime.h"
#include "tools/shell/error_reporter.h"
#include "tools/shell/event_loop.h"
#include "tools/shell/global_events.h"
#include "tools/shell/modules.h"
#include "tools/shell/performance.h"
#include "tools/shell/timers.h"
#include "v8-context.h"
#include "v8-isolate.h"
#include "v8-persistent-handle.h"
#include "v8-platform.h"

namespace asyncctx {
namespace shell {

struct SourceFile {
  std::string name;
  std::string contents;
  // Run as an ES module rather than a classic script.
  bool is_module = false;
};

class Shell {
 public:
  // `isolate` must have the kExplicit microtask policy and be entered.
  Shell(v8::Isolate* isolate, v8::Platform* platform, const TimeOrigin* origin);
  ~Shell();

  Shell(const Shell&) = delete;
  Shell& operator=(const Shell&) = delete;

  // Creates the runtime and the context with all globals. Prints why and
  // returns false on failure.
  bool Initialize();

  // Defines `benchNatives` at Initialize() (--bench-natives).
  void set_bench_natives(bool enabled) { bench_natives_ = enabled; }

  // Runs the files and the event loop; returns the process exit code.
  int Run(const std::vector<SourceFile>& files);

 private:
  v8::Isolate* const isolate_;
  v8::Platform* const platform_;
  const TimeOrigin* const origin_;
  ErrorReporter reporter_;
  std::unique_ptr<asyncctx::Runtime> runtime_;
  v8::Global<v8::Context> context_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<Timers> timers_;
  std::unique_ptr<GlobalEvents> events_;
  std::unique_ptr<ModuleLoader> modules_;
  bool bench_natives_ = false;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_SHELL_H_
