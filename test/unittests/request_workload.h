// Copyright 2026 the asyncctx authors. All rights reserved.
//
// A multi-tenant "request" workload and the tiny host event loop that drives
// it, shared by the stress and fault tests.
//
// Each request is an `als.run({id})` + `AsyncContext.Variable.run(id)` around
// an async function of 2 to 20 random steps: `await null`, `await thenable`,
// queueMicrotask, host timers, AsyncResource.runInAsyncScope from a foreign
// frame, Promise.all, AsyncResource.bind / Snapshot.wrap run from a root
// timer, nested run. Every step checks that the store and the variable hold
// the request's own id, and the host timer checks the same thing from C++
// (ContextKey over the variable). Timers are host AsyncResources run through
// CallbackScope, in random order, by RequestLoop.

#ifndef ASYNCCTX_TEST_UNITTESTS_REQUEST_WORKLOAD_H_
#define ASYNCCTX_TEST_UNITTESTS_REQUEST_WORKLOAD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-persistent-handle.h"

namespace asyncctx {
namespace test {

// Iteration counts for this build: `n` times ASYNCCTX_STRESS_SCALE (a
// positive number) if it is set; otherwise `n` in normal builds, `n * asan`
// under ASan and `n * tsan` under TSan. Never less than 1.
int Scaled(int n, double asan = 0.1, double tsan = 0.05);

// Resident and virtual memory of this process, in bytes (/proc/self/statm).
struct MemoryUsage {
  size_t resident = 0;
  size_t virtual_size = 0;
};
MemoryUsage CurrentMemoryUsage();

class RequestLoop {
 public:
  struct Options {
    // Enables an async hook (init/before/after/destroy/promiseResolve) that
    // also checks executionAsyncId() inside `before`.
    bool hooks = false;
    // Starts each round inside a CallbackScope of a host "Request" resource
    // (as a server does for an incoming connection) rather than at the top
    // level.
    bool start_in_callback_scope = true;
  };

  // The isolate must be entered and a HandleScope open whenever a method is
  // called. `runtime` must be installed in `context`.
  RequestLoop(v8::Isolate* isolate,
              Runtime* runtime,
              v8::Local<v8::Context> context,
              uint32_t seed,
              Options options);
  // Destroys pending timers (their host AsyncResources).
  ~RequestLoop();

  RequestLoop(const RequestLoop&) = delete;
  RequestLoop& operator=(const RequestLoop&) = delete;

  // Defines setTimer() and the workload in the context. False (with a test
  // failure) if the script threw.
  bool Install();

  // kBusy: RunTimers() stopped at its limit with timers still pending.
  enum class Outcome { kIdle, kBusy, kTerminated };

  // Starts `count` requests with ids first_id.. and runs timers, microtasks
  // and platform tasks until nothing is pending, or until the isolate is
  // terminated (then pending timers are left in place).
  Outcome RunRound(int first_id, int count, uint32_t round_seed);

  // Runs timers until none is pending or the isolate is terminating.
  Outcome RunUntilIdle() { return RunTimers(SIZE_MAX); }
  // Runs at most `max_timers` timers.
  Outcome RunTimers(size_t max_timers);

  // After a kIdle round: empty when every request finished and every check
  // passed; otherwise what went wrong.
  std::string CheckRound();

  // Destroys pending timers without running them (host shutdown, or after
  // TerminateExecution).
  void DropPendingTimers();

  size_t pending_timers() const { return timers_.size(); }
  uint64_t timers_run() const { return timers_run_; }
  uint64_t requests_checked() const { return requests_checked_; }
  uint64_t steps_checked() const { return steps_checked_; }
  // Set by a native check that ran on the isolate's thread.
  uint64_t native_mismatches() const { return native_mismatches_; }

 private:
  struct Timer {
    std::unique_ptr<AsyncResource> resource;
    v8::Global<v8::Function> callback;
  };

  static void SetTimer(const v8::FunctionCallbackInfo<v8::Value>& info);
  void PumpPlatform();

  v8::Isolate* isolate_;
  Runtime* runtime_;
  v8::Global<v8::Context> context_;
  Options options_;
  std::mt19937 rng_;
  std::unique_ptr<ContextKey> request_id_key_;
  std::vector<std::unique_ptr<Timer>> timers_;
  int last_count_ = 0;
  uint64_t timers_run_ = 0;
  uint64_t requests_checked_ = 0;
  uint64_t steps_checked_ = 0;
  uint64_t native_mismatches_ = 0;
  uint64_t stack_errors_ = 0;
  std::string callback_errors_;
};

}  // namespace test
}  // namespace asyncctx

#endif  // ASYNCCTX_TEST_UNITTESTS_REQUEST_WORKLOAD_H_
