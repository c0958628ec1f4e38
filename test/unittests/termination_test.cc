// Copyright 2026 the asyncctx authors. All rights reserved.
//
// TerminateExecution at chosen and at random points: after each, the host
// cancels the termination and the next script runs at the root frame with an
// empty execution stack.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "src/v8_compat.h"
#include "test/unittests/reporting_fixture.h"
#include "test/unittests/request_workload.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

TEST_F(TerminationTest, TerminationInsideRunAtTopLevelRestoresTheRootFrame) {
  RunTerminated("als.run('leaked', () => { terminateNow(); for (;;) {} })");
  Recover();
  ExpectAtRest("after the termination");
}

// runInAsyncScope's `finally` never runs when the isolate is terminated: the
// runtime unwinds the execution stack outside of a CallbackScope too, or
// every later macrotask would run with the terminated resource's ids.
TEST_F(TerminationTest, TerminationInATopLevelScriptLeavesTheStackEmpty) {
  RunTerminated(
      "new AsyncResource('X').runInAsyncScope(() => {"
      "  terminateNow(); for (;;) {} })");
  Recover();
  ExpectAtRest("after the termination");
}

// The JavaScript half of the execution stack (the resources of entries pushed
// by the layer) is reset too: in the next host callback, at the depth the
// terminated resource had, executionAsyncResource() is the host's resource.
// With internal/execution_stack's resetAfterTermination made a no-op this
// returns the terminated resource (found by tools/mutate).
TEST_F(TerminationTest, TerminatedResourceIsNotTheNextHostCallbacksResource) {
  RunTerminated(
      "globalThis.terminated = new AsyncResource('X');"
      "terminated.runInAsyncScope(() => { terminateNow(); for (;;) {} })");
  Recover();
  runtime()->RunMicrotasks(context());
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    v8::Local<v8::Value> resource = Run("asyncHooks.executionAsyncResource()");
    EXPECT_FALSE(resource->StrictEquals(Run("terminated")));
    EXPECT_TRUE(resource->StrictEquals(host.resource()));
  }
  ExpectAtRest("after the host callback");
}

// A termination inside a hook callback skips the hook caller's `finally`,
// which counts the callback out (the hook call depth). The reset after the
// termination zeroes it: else the program's next stack overflow inside a
// hook callback, at hook call depth 1, would be counted at depth 2 and
// reported as a hook error instead of reaching the program's catch
// (internal/hooks' resetAfterTermination made a no-op: found by
// tools/mutate). Each kind whose callback can run with nothing on the
// execution stack and outside a checkpoint: init and promiseResolve called
// by a top-level script, destroy emitted by the host from a task (before
// and after always have their resource's entry on the stack). Each is the
// first hook call since the last reset.
TEST_F(TerminationTest, TerminationInsideAHookCallbackResetsTheHookCallDepth) {
  SetFunction(
      context(), "emitNow",
      [](const v8::FunctionCallbackInfo<v8::Value>&) {
        FunctionData<Runtime>()->EmitPendingDestroys();
      },
      runtime());
  const char* const kScripts[] = {
      "globalThis.h = asyncHooks.createHook({init(id, type) {"
      "  if (type === 'T') { terminateNow(); for (;;) {} } }}).enable();"
      "new AsyncResource('T');",
      "globalThis.h = asyncHooks.createHook({promiseResolve() {"
      "  terminateNow(); for (;;) {} }}).enable();"
      "Promise.resolve(1);",
      "globalThis.h = asyncHooks.createHook({destroy() {"
      "  terminateNow(); for (;;) {} }}).enable();"
      "new AsyncResource('T').emitDestroy(); emitNow();",
  };
  for (const char* script : kScripts) {
    SCOPED_TRACE(script);
    RunTerminated(script);
    Recover();
    RunString("h.disable()");
    // The program's overflow inside an init callback that makes a dozen
    // calls of its own (so the layer catches it with room to look at it).
    EXPECT_EQ(RunString(R"JS(
      (() => {
        function chain(n) { return n === 0 ? 0 : chain(n - 1) + 1; }
        const hook = asyncHooks.createHook({init() { chain(12); }}).enable();
        let caught = 0;
        (function deep() {
          try { deep(); } catch {}
          try { new AsyncResource('X'); } catch (e) { caught++; }
        })();
        hook.disable();
        return caught > 0;
      })()
    )JS"),
              "true");
    EXPECT_TRUE(reports_.hook_errors.empty()) << reports_.Summary();
    reports_.hook_errors.clear();
    ExpectAtRest("after the overflows");
  }
}

// As above, in a microtask run by Runtime::RunMicrotasks().
TEST_F(TerminationTest, TerminationInATopLevelCheckpointLeavesTheStackEmpty) {
  RunString(
      "queueMicrotask(() => new AsyncResource('X').runInAsyncScope(() => {"
      "  terminateNow(); for (;;) {} }))");
  runtime()->RunMicrotasks(context());
  EXPECT_TRUE(isolate()->IsExecutionTerminating());
  Recover();
  ExpectAtRest("after the termination");
}

// A job of a terminated checkpoint entered a store that its
// runInAsyncScope never restores: RunMicrotasks leaves the root frame
// current anyway, so the host's next script after CancelTerminateExecution
// (before any recovery) does not see that store.
TEST_F(TerminationTest,
       TerminatedCheckpointLeavesTheRootFrameForTheNextScript) {
  RunString(
      "queueMicrotask(() => new AsyncResource('X').runInAsyncScope(() => {"
      "  als.enterWith('leaked'); terminateNow(); for (;;) {} }))");
  runtime()->RunMicrotasks(context());
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(RunString("String(als.getStore())"), "undefined");
  Recover();
  ExpectAtRest("after the termination");
}

// V8 >= 12 forgets a termination once no JavaScript is left on the stack,
// which may be before the runtime's MicrotasksCompletedCallback runs: the
// deeper execution stack alone must make the next RunMicrotasks reset the
// layer's bookkeeping. Here a host's own completed callback, registered on
// the context's queue before Install, cancels the termination first.
TEST_F(TerminationTest,
       CheckpointTerminationCancelledBeforeItCompletesIsRecovered) {
  std::unique_ptr<v8::MicrotaskQueue> queue =
      v8::MicrotaskQueue::New(isolate(), v8::MicrotasksPolicy::kExplicit);
  queue->AddMicrotasksCompletedCallback(
      [](v8::Isolate* isolate, void*) { isolate->CancelTerminateExecution(); },
      nullptr);
  // The runtime unregisters from the queue before the queue is freed.
  absl::Cleanup destroy_runtime = [this] { env().DestroyRuntime(); };
  {
    v8::HandleScope handle_scope(isolate());
    v8::Local<v8::Context> own = v8::Context::New(
        isolate(), nullptr, v8::MaybeLocal<v8::ObjectTemplate>(),
        v8::MaybeLocal<v8::Value>(), v8::DeserializeInternalFieldsCallback(),
        queue.get());
    ASSERT_TRUE(runtime()->Install(own).FromMaybe(false));
    SetFunction(own, "terminateNow",
                [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                  info.GetIsolate()->TerminateExecution();
                });
    env().RunStringIn(own,
                      "globalThis.terminated = new AsyncResource('X');"
                      "queueMicrotask(() => terminated.runInAsyncScope(() => {"
                      "  terminateNow(); for (;;) {} })); ''");
    runtime()->RunMicrotasks(own);
    EXPECT_FALSE(isolate()->IsExecutionTerminating());
    runtime()->RunMicrotasks(own);
    AsyncResource host(own, "Host");
    {
      CallbackScope scope(&host);
      v8::Local<v8::Value> resource =
          env().RunIn(own, "asyncHooks.executionAsyncResource()");
      EXPECT_TRUE(resource->StrictEquals(host.resource()));
    }
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  }
}

// As above, in the checkpoint the outermost CallbackScope runs after it has
// popped its own entry.
TEST_F(TerminationTest,
       TerminationInACallbackScopeCheckpointLeavesTheStackEmpty) {
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    RunString(
        "queueMicrotask(() => new AsyncResource('X').runInAsyncScope("
        "  () => { terminateNow(); for (;;) {} }))");
  }
  EXPECT_TRUE(isolate()->IsExecutionTerminating());
  Recover();
  ExpectAtRest("after the termination");
}

// With a hook enabled, the promise `before` hook pushes the promise's id
// and its `after` hook never runs.
TEST_F(TerminationTest,
       TerminationInAPromiseReactionWithHooksLeavesTheStackEmpty) {
  RunString(
      "asyncHooks.createHook({init() {}}).enable();"
      "Promise.resolve().then(() => { terminateNow(); for (;;) {} });");
  runtime()->RunMicrotasks(context());
  EXPECT_TRUE(isolate()->IsExecutionTerminating());
  Recover();
  ExpectAtRest("after the termination");
}

// Set by the script's `inLoop()`: the watchdog terminates only once the
// loop runs, however late the script starts on a busy machine.
std::atomic<bool> script_in_loop{false};

// Runs `source` while a watchdog thread calls TerminateExecution() once,
// after the script called `inLoop()`. Returns "terminated", or what the
// script did instead.
std::string RunWithOneTermination(TestIsolate& env, const char* source) {
  v8::Isolate* isolate = env.isolate();
  script_in_loop = false;
  {
    v8::HandleScope scope(isolate);
    v8::Local<v8::Context> context = env.context();
    context->Global()
        ->Set(context, v8::String::NewFromUtf8Literal(isolate, "inLoop"),
              v8::Function::New(context,
                                [](const v8::FunctionCallbackInfo<v8::Value>&) {
                                  script_in_loop = true;
                                })
                  .ToLocalChecked())
        .Check();
  }
  std::thread watchdog([isolate] {
    while (!script_in_loop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    isolate->TerminateExecution();
  });
  v8::HandleScope scope(isolate);
  v8::Local<v8::Context> context = env.context();
  v8::Context::Scope context_scope(context);
  std::string outcome;
  {
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::Value> result;
    if (v8::Script::Compile(
            context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
            .ToLocalChecked()
            ->Run(context)
            .ToLocal(&result)) {
      outcome = "returned " + ToString(isolate, result);
    } else if (try_catch.HasTerminated()) {
      outcome = "terminated";
    } else {
      outcome = "threw " + ToString(isolate, try_catch.Exception());
    }
  }
  script_in_loop = true;  // a script that never got there: the watchdog ends
  watchdog.join();
  isolate->CancelTerminateExecution();
  env.runtime()->RunMicrotasks(context);
  return outcome;
}

// V8 10.2 reports an exception thrown by a context promise hook as a message
// and clears it (NativeContext::RunPromiseHook), and a termination is an
// exception. A watchdog's TerminateExecution must still stop a runaway loop
// that creates promises while the thenable repair's or the hooks' promise
// hooks are installed.
TEST_F(TerminationTest, TerminationIsNotSwallowedByTheThenableRepair) {
  EXPECT_EQ(RunWithOneTermination(env(), R"JS(
    als.run(1, () => {
      const start = Date.now();
      for (;;) {
        Promise.resolve();
        inLoop();
        if (Date.now() - start > 30000) return 'still running after 30 s';
      }
    })
  )JS"),
            "terminated");
  ExpectAtRest("after the termination");
}

TEST_F(TerminationTest, TerminationIsNotSwallowedByHookPromiseEvents) {
  EXPECT_EQ(RunWithOneTermination(env(), R"JS(
    asyncHooks.createHook({init() {}}).enable();
    (() => {
      const start = Date.now();
      for (;;) {
        Promise.resolve();
        inLoop();
        if (Date.now() - start > 30000) return 'still running after 30 s';
      }
    })()
  )JS"),
            "terminated");
  ExpectAtRest("after the termination");
}

// A termination that lands in a `before` hook called by CallbackScope from
// C++ stops the host's callback too.
TEST_F(TerminationTest, TerminationInABeforeHookIsNotLost) {
  RunString(
      "globalThis.armed = true;"
      "asyncHooks.createHook({before() {"
      "  if (armed) { armed = false; terminateNow(); for (;;) {} }"
      "}}).enable();");
  AsyncResource host(context(), "Host");
  bool callback_ran = false;
  bool callback_terminated = false;
  {
    v8::TryCatch outer(isolate());
    {
      CallbackScope scope(&host);
      v8::TryCatch try_catch(isolate());
      v8::Local<v8::Script> script;
      v8::Local<v8::Value> result;
      callback_ran = v8::Script::Compile(
                         context(), v8::String::NewFromUtf8Literal(
                                        isolate(), "globalThis.ran = true"))
                         .ToLocal(&script) &&
                     script->Run(context()).ToLocal(&result);
      if (!callback_ran)
        scope.MarkAsFailed();
      callback_terminated = try_catch.HasTerminated();
    }
    // V8 10.2 reports the termination to every TryCatch on the way out. From
    // V8 12 a termination ends at the innermost TryCatch with no JavaScript
    // left above it (compat::kV8EndsTerminationAtTheTop): CallbackScope
    // terminates again, and the callback's own TryCatch sees that.
    if (compat::kV8EndsTerminationAtTheTop)
      EXPECT_TRUE(callback_terminated);
    else
      EXPECT_TRUE(outer.HasTerminated());
  }
  EXPECT_FALSE(callback_ran) << "the callback ran after its before hook was "
                                "terminated";
  Recover();
  ExpectAtRest("after the termination");
}

// A termination inside an `after` hook called by ~CallbackScope (a
// watchdog, or a host whose hook-error handler terminates) skips
// JavaScript's pops there: the scope must decide whether the isolate is
// terminating after the hooks ran, and unwind, not report "async context
// stack corruption" and abort. Run in a child process so that an abort
// fails only this test.
using TerminationDeathTest = TerminationTest;
TEST_F(TerminationDeathTest,
       TerminationInAnAfterHookOfACallbackScopeIsUnwound) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RunString(R"JS(
          globalThis.armed = false;
          const inner = new AsyncResource('Inner');
          asyncHooks.createHook({after() {
            if (!armed) return;
            armed = false;
            inner.runInAsyncScope(() => { terminateNow(); for (;;) {} });
          }}).enable();
        )JS");
        AsyncResource host(context(), "Host");
        {
          v8::TryCatch outer(isolate());
          CallbackScope scope(&host);
          RunString("armed = true");
        }
        Recover();
        ExpectAtRest("after the termination");
        // _Exit: the fixture's isolate is still alive, and LeakSanitizer's
        // exit-time check would report V8's memory.
        std::fflush(nullptr);
        std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A terminated host callback is unwound by its CallbackScope.
TEST_F(TerminationTest, TerminationInsideAHostCallbackIsUnwoundByTheScope) {
  RunString("asyncHooks.createHook({init() {}}).enable();");
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    v8::TryCatch try_catch(isolate());
    v8::Local<v8::Value> result;
    EXPECT_FALSE(v8::Script::Compile(
                     context(), v8::String::NewFromUtf8Literal(isolate(), R"JS(
                       als.run('in-callback', () =>
                           new AsyncResource('X').runInAsyncScope(() => {
                             terminateNow(); for (;;) {}
                           }));
                     )JS"))
                     .ToLocalChecked()
                     ->Run(context())
                     .ToLocal(&result));
    scope.MarkAsFailed();
  }
  Recover();
  ExpectAtRest("after the termination");
}

// ---------------------------------------------------------------------------
// TerminateExecution at random points.

struct TerminateStats {
  int rounds = 0;
  int terminated = 0;
};

// Runs rounds of requests while a watchdog thread terminates the isolate
// after a random delay; after each round, terminated or not, the host
// cancels the termination and the next script must start at the root frame
// with an empty execution stack, and a clean round must have no cross-talk.
void TerminateAtRandomPoints(RequestLoop::Options options,
                             uint32_t seed,
                             int iterations,
                             TerminateStats* stats) {
  Reports reports;
  TestIsolate env(reports.Options());
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  RequestLoop loop(isolate, env.runtime(), env.context(), seed, options);
  ASSERT_TRUE(loop.Install());
  env.Run("globalThis.probes = [__requestId];");
  std::mt19937 rng(seed);
  const int requests = 100;
  // Calibrate: how long an undisturbed round takes here.
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(loop.RunRound(1, requests, seed), RequestLoop::Outcome::kIdle);
  ASSERT_EQ(loop.CheckRound(), "");
  auto round_us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  int next_id = 1 + requests;
  // The watchdog's delay is random below max_delay_us, which adapts so that
  // about half of the rounds are terminated.
  double max_delay_us = static_cast<double>(round_us);
  for (int i = 0; i < iterations; i++) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    std::atomic<bool> round_over{false};
    std::atomic<bool> fired{false};
    auto delay = std::chrono::microseconds(
        rng() % (static_cast<uint64_t>(max_delay_us) + 1));
    std::thread watchdog([&] {
      auto until = std::chrono::steady_clock::now() + delay;
      while (!round_over.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
      if (!round_over.load()) {
        fired = true;
        isolate->TerminateExecution();
      }
    });
    RequestLoop::Outcome outcome = loop.RunRound(next_id, requests, rng());
    next_id += requests;
    round_over = true;
    watchdog.join();
    // V8 forgets a termination once no JavaScript is left on the stack (one
    // that hit a platform task or the last checkpoint is invisible here), so
    // the watchdog says whether it fired.
    bool terminated = outcome == RequestLoop::Outcome::kTerminated ||
                      isolate->IsExecutionTerminating() || fired.load();
    // A termination requested after the round ended is still pending; the
    // host cancels it either way, and ends the macrotask as usual.
    isolate->CancelTerminateExecution();
    env.runtime()->RunMicrotasks(env.context());
    stats->rounds++;
    if (terminated) {
      stats->terminated++;
      loop.DropPendingTimers();
      max_delay_us *= 1.25;
    } else {
      max_delay_us *= 0.8;
      EXPECT_EQ(loop.CheckRound(), "");
    }
    // The next macrotask.
    EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);
    EXPECT_EQ(env.runtime()->ExecutionAsyncId(), 1);
    EXPECT_EQ(env.RunString(
                  "[asyncHooks.executionAsyncId(), asyncHooks.triggerAsyncId(),"
                  " String(__requestId.get())].join()"),
              "1,0,undefined");
    if (terminated) {
      // Whatever the terminated round left behind, a new round is clean.
      EXPECT_EQ(loop.RunRound(next_id, requests, rng()),
                RequestLoop::Outcome::kIdle);
      next_id += requests;
      EXPECT_EQ(loop.CheckRound(), "") << "in the round after a termination";
    }
    if (::testing::Test::HasFailure())
      break;
  }
  loop.DropPendingTimers();
  EXPECT_EQ(reports.hook_errors.size(), 0u) << reports.Summary();
}

// Where a request starts, and whether hooks are enabled while it runs.
struct RandomTerminationCase {
  const char* name;
  bool start_in_callback_scope;
  bool hooks;
  uint32_t seed;
};

class RandomTerminationTest
    : public ::testing::TestWithParam<RandomTerminationCase> {};

TEST_P(RandomTerminationTest, TerminateAtRandomPointsInRequests) {
  TerminateStats stats;
  RequestLoop::Options options;
  options.start_in_callback_scope = GetParam().start_in_callback_scope;
  options.hooks = GetParam().hooks;
  TerminateAtRandomPoints(options, GetParam().seed, Scaled(100, 0.5, 0.25),
                          &stats);
  std::printf("[ faults   ] %d rounds, %d terminated\n", stats.rounds,
              stats.terminated);
  EXPECT_GT(stats.terminated, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Requests,
    RandomTerminationTest,
    ::testing::Values(
        RandomTerminationCase{"StartedByTheHost", true, false, 11},
        RandomTerminationCase{"StartedByTheHostWithHooks", true, true, 12},
        RandomTerminationCase{"StartedAtTopLevelWithHooks", false, true, 13}),
    [](const ::testing::TestParamInfo<RandomTerminationCase>& info) {
      return std::string(info.param.name);
    });
// A watchdog terminates a callback run by MakeCallback or in a
// CallbackScope; its promise reactions and queueMicrotask callbacks must not
// run afterwards in its store.
TEST_F(TerminationTest, TerminatedCallbackDropsItsQueuedWork) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.ran = [];");
  v8::Local<v8::Function> fn = CompileFunction(context(), R"JS(
    (function() {
      als.run('tenant', () => {
        Promise.resolve().then(() => ran.push('reaction:' + als.getStore()));
        queueMicrotask(() => ran.push('microtask:' + als.getStore()));
        terminateNow();
        for (;;) {}
      });
    })
  )JS");
  for (bool with_scope : {false, true}) {
    AsyncResource resource(context(), "Tenant");
    {
      v8::TryCatch try_catch(isolate());
      if (with_scope) {
        // The documented CallbackScope + TryCatch + MarkAsFailed pattern.
        CallbackScope scope(&resource);
        v8::TryCatch inner(isolate());
        if (fn->Call(context(), v8::Undefined(isolate()), 0, nullptr)
                .IsEmpty()) {
          scope.MarkAsFailed();
        }
      } else {
        EXPECT_TRUE(
            MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
                .IsEmpty());
        EXPECT_TRUE(try_catch.HasTerminated());
      }
    }
    isolate()->CancelTerminateExecution();
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.join()"), "") << "with_scope=" << with_scope;
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
    // The isolate works normally afterwards.
    Run("Promise.resolve().then(() => ran.push('later'))");
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.splice(0).join()"), "later");
    // The dropped callback is not the one the next runner runs.
    Run("als.run('next', () => queueMicrotask("
        "    () => ran.push('microtask:' + als.getStore())))");
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.splice(0).join()"), "microtask:next")
        << "with_scope=" << with_scope;
  }
}

// The same with no host TryCatch around MakeCallback (a watchdog host that
// only checks the empty result): V8 10.2 ends the termination when the
// bottom call returns, so MakeCallback itself must see it.
TEST_F(TerminationTest, TerminatedCallbackDropsItsQueuedWorkWithoutATryCatch) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.ran = [];");
  v8::Local<v8::Function> fn = CompileFunction(context(), R"JS(
    (function() {
      als.run('tenant', () => {
        Promise.resolve().then(() => ran.push('reaction:' + als.getStore()));
        queueMicrotask(() => ran.push('microtask:' + als.getStore()));
        terminateNow();
        for (;;) {}
      });
    })
  )JS");
  AsyncResource resource(context(), "Tenant");
  EXPECT_TRUE(MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
                  .IsEmpty());
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(RunString("ran.join()"), "");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.join()"), "");
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  // A callback that throws (reported to the runtime as uncaught) still runs
  // its reactions, as Node does.
  v8::Local<v8::Function> thrower = CompileFunction(context(), R"JS(
    (function() {
      als.run('thrower', () => {
        Promise.resolve().then(() => ran.push('reaction:' + als.getStore()));
        throw new Error('boom');
      });
    })
  )JS");
  EXPECT_TRUE(
      MakeCallback(&resource, v8::Undefined(isolate()), thrower, 0, nullptr)
          .IsEmpty());
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.splice(0).join()"), "reaction:thrower");
  Run("Promise.resolve().then(() => ran.push('later'))");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.splice(0).join()"), "later");
  Run("als.run('next', () => queueMicrotask("
      "    () => ran.push('microtask:' + als.getStore())))");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.splice(0).join()"), "microtask:next");
}

// The host's native function `callBack(fn)`: runs fn through MakeCallback
// with no TryCatch of its own, from JavaScript.
void CallBackFromJavaScript(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Local<v8::Value> result;
  if (MakeCallback(FunctionData<AsyncResource>(),
                   v8::Undefined(info.GetIsolate()), info[0].As<v8::Function>(),
                   0, nullptr)
          .ToLocal(&result)) {
    info.GetReturnValue().Set(result);
  }
}

// The same from JavaScript (no host TryCatch, JavaScript below): the
// termination unwinds through the caller, and the callback's queued work is
// dropped all the same.
TEST_F(TerminationTest, TerminatedCallbackFromJavaScriptDropsItsQueuedWork) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.ran = [];");
  AsyncResource resource(context(), "Tenant");
  SetFunction(context(), "callBack", CallBackFromJavaScript, &resource);
  v8::Local<v8::Script> script =
      v8::Script::Compile(context(),
                          v8::String::NewFromUtf8Literal(isolate(), R"JS(
    callBack(() => {
      als.run('tenant', () => {
        Promise.resolve().then(() => ran.push('reaction:' + als.getStore()));
        queueMicrotask(() => ran.push('microtask:' + als.getStore()));
        terminateNow();
        for (;;) {}
      });
    });
    ran.push('after callBack');
  )JS"))
          .ToLocalChecked();
  EXPECT_TRUE(script->Run(context()).IsEmpty());
  isolate()->CancelTerminateExecution();
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.join()"), "");
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  Run("Promise.resolve().then(() => ran.push('later'))");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.splice(0).join()"), "later");
  Run("als.run('next', () => queueMicrotask("
      "    () => ran.push('microtask:' + als.getStore())))");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.splice(0).join()"), "microtask:next");
}

// A checkpoint terminated while queueMicrotask callbacks wait: V8 drops
// their runners, and the layer's FIFO of callbacks is cleared with them, so
// the dropped callbacks and their frames are not kept alive, and the next
// callback queued is the one the next runner runs. More than a chunk of the
// FIFO (1,024 callbacks) waits, so the dropped ones span two chunks; they
// start at its first slot, then (one callback ran before them) at its second.
TEST_F(TerminationTest, TerminatedCheckpointDropsItsQueuedMicrotaskCallbacks) {
  Run("globalThis.ran = [];");
  for (bool one_ran_first : {false, true}) {
    SCOPED_TRACE(one_ran_first ? "one ran first" : "none ran first");
    if (one_ran_first)
      Run("als.run('zero', () => queueMicrotask(() => ran.push('zero')))");
    Run(R"JS(
      Promise.resolve().then(() => als.run({name: 'tenant'}, () => {
        const first = () => ran.push('first');
        const second = () => ran.push('second');
        const last = () => ran.push('last');
        globalThis.dropped = [new WeakRef(first), new WeakRef(second),
                              new WeakRef(last), new WeakRef(als.getStore())];
        queueMicrotask(first);
        queueMicrotask(second);
        for (let i = 0; i < 1022; i++) queueMicrotask(() => ran.push(i));
        queueMicrotask(last);
        terminateNow();
        for (;;) {}
      }));
    )JS");
    runtime()->RunMicrotasks(context());
    EXPECT_TRUE(isolate()->IsExecutionTerminating());
    Recover();
    env().CollectGarbage();
    EXPECT_EQ(RunString("dropped.map((ref) => typeof ref.deref()).join()"),
              "undefined,undefined,undefined,undefined");
    Run("als.run('next', () => queueMicrotask("
        "    () => ran.push('next:' + als.getStore())))");
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.splice(0).join()"),
              one_ran_first ? "zero,next:next" : "next:next");
    ExpectAtRest("after the next callback");
  }
}

// As above, with the checkpoint run inside a CallbackScope that stays open:
// there the layer's reset waits for the scope to close, and the next
// queueMicrotask call, in the same scope, still must not find the dropped
// callback (the completed checkpoint made it stale).
TEST_F(TerminationTest, TerminatedCheckpointInsideAScopeDropsItsCallbacks) {
  Run("globalThis.ran = [];");
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    Run(R"JS(
      als.run('tenant', () => {
        Promise.resolve().then(() => { terminateNow(); for (;;) {} });
        queueMicrotask(() => ran.push('dropped:' + als.getStore()));
      });
    )JS");
    runtime()->RunMicrotasks(context());
    EXPECT_TRUE(isolate()->IsExecutionTerminating());
    isolate()->CancelTerminateExecution();
    Run("als.run('next', () => queueMicrotask("
        "    () => ran.push('next:' + als.getStore())))");
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.splice(0).join()"), "next:next");
  }
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.join()"), "");
  ExpectAtRest("after the scope");
}

}  // namespace
// A destroy batch cut short by a termination keeps its ids for a later
// emission: the contexts after the terminated one in the walk are emitted
// the next time (they stay on the runtime's list of pending destroys).
TEST_F(TerminationTest, DestroysLeftByATerminatedBatchAreEmittedLater) {
  v8::Local<v8::Context> second = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(second).FromMaybe(false));
  RunString(
      "globalThis.once = true;"
      "asyncHooks.createHook({ destroy() {"
      "  if (once) { once = false; terminateNow(); for (;;) {} } } })"
      "    .enable(); ''");
  env().RunStringIn(second,
                    "globalThis.destroyed = 0;"
                    "asyncHooks.createHook({ destroy() { destroyed++; } })"
                    "    .enable(); ''");
  SetFunction(
      context(), "emitNow",
      [](const v8::FunctionCallbackInfo<v8::Value>&) {
        FunctionData<Runtime>()->EmitPendingDestroys();
      },
      runtime());
  { AsyncResource first_resource(context(), "A"); }
  { AsyncResource second_resource(second, "B"); }
  // JavaScript stays on the stack around the emission, so the isolate is
  // still terminating when it reaches `second`.
  RunTerminated("emitNow()");
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(env().RunStringIn(second, "String(destroyed)"), "0");
  runtime()->EmitPendingDestroys();
  EXPECT_EQ(env().RunStringIn(second, "String(destroyed)"), "1");
  Recover();
}

}  // namespace test
}  // namespace asyncctx
