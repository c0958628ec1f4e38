// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Runtime: ids shared by its contexts, one runtime per isolate and thread,
// its lifetime, and the host's fatal-error handler.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test/unittests/v8_fixture.h"
#include "v8-exception.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-statistics.h"

namespace asyncctx {
namespace test {
namespace {

using RuntimeTest = V8Test;
using RuntimeDeathTest = V8Test;

TEST_F(RuntimeTest, TopLevelIds) {
  EXPECT_EQ(RunNumber("asyncHooks.executionAsyncId()"), 1);
  EXPECT_EQ(RunNumber("asyncHooks.triggerAsyncId()"), 0);
  EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
  EXPECT_EQ(runtime()->TriggerAsyncId(), 0);
  EXPECT_EQ(RunString("const r1 = asyncHooks.executionAsyncResource();"
                      "r1 === asyncHooks.executionAsyncResource()"),
            "true");
}

TEST_F(RuntimeTest, TwoContextsShareIdsButNotGlobals) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(other).FromMaybe(false));
  double first = RunNumber("new AsyncResource('A').asyncId()");
  double second;
  {
    v8::Context::Scope scope(other);
    second = v8::Script::Compile(
                 other, v8::String::NewFromUtf8Literal(
                            isolate(), "new AsyncResource('B').asyncId()"))
                 .ToLocalChecked()
                 ->Run(other)
                 .ToLocalChecked()
                 .As<v8::Number>()
                 ->Value();
    EXPECT_FALSE(other->Global()
                     ->Get(other, v8::String::NewFromUtf8Literal(
                                      isolate(), "AsyncResource"))
                     .ToLocalChecked()
                     ->StrictEquals(Run("AsyncResource")));
  }
  EXPECT_EQ(second, first + 1);
}

// The same work on 4 isolates on 4 threads gives identical results.
TEST(RuntimeThreadTest, FourIsolatesOnFourThreads) {
  const char* kScript = R"JS(
    const als = new AsyncLocalStorage();
    let log = [];
    for (let i = 0; i < 200; i++) {
      als.run(i, async () => {
        await null;
        const r = new AsyncResource('R');
        log.push(als.getStore() + ':' + r.runInAsyncScope(
            () => asyncHooks.executionAsyncId() - r.asyncId()));
      });
    }
    globalThis.result = () => log.join(',') + '|' + new AsyncResource('X').asyncId();
  )JS";
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      TestIsolate env;
      v8::Isolate::Scope isolate_scope(env.isolate());
      v8::HandleScope handle_scope(env.isolate());
      env.RunAndDrain(kScript);
      results[t] = env.RunString("result()");
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_NE(results[0].find("199:0"), std::string::npos);
  for (int t = 1; t < 4; t++)
    EXPECT_EQ(results[t], results[0]);
}

TEST(RuntimeLifetimeTest, CreateTwiceForOneIsolateFails) {
  TestIsolate env;
  EXPECT_EQ(Runtime::Create(env.isolate()), nullptr);
  EXPECT_EQ(Runtime::From(env.isolate()), env.runtime());
}

TEST(RuntimeLifetimeTest, NewReportsWhyItFailed) {
  TestIsolate env;
  absl::StatusOr<std::unique_ptr<Runtime>> second = Runtime::New(env.isolate());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find("already has a runtime"),
            std::string::npos);
  absl::StatusOr<std::unique_ptr<Runtime>> none = Runtime::New(nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Runtime::From(env.isolate()), env.runtime());
}

TEST(RuntimeLifetimeTest, BindingsThrowAfterTheRuntimeIsDestroyed) {
  TestIsolate env;
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.Run(
      "globalThis.als = new AsyncLocalStorage();"
      "globalThis.snapshot = new AsyncContext.Snapshot();"
      "globalThis.resource = new AsyncResource('Before');");
  env.DestroyRuntime();
  // run() throws before it changes the frame (on V8 >= 12.4 too, where it
  // calls no binding: the per-context fields it reads are detached).
  EXPECT_EQ(env.RunString(
                "try { als.run(1, () => {}); 'no' } catch (e) { e.message }"),
            "asyncctx: the Runtime of this context has been destroyed");
  EXPECT_EQ(env.RunString("try { asyncHooks.createHook({init() {}})"
                          ".enable(); 'no' } catch (e) { e.message }"),
            "asyncctx: the Runtime of this context has been destroyed");
  EXPECT_EQ(env.RunString("try { asyncHooks.executionAsyncId(); 'no' } "
                          "catch (e) { e.message }"),
            "asyncctx: the Runtime of this context has been destroyed");
  // Each reader of the execution stack and the id counter, whose shared
  // views are detached now (they read undefined and NaN).
  for (const char* call :
       {"asyncHooks.triggerAsyncId()", "asyncHooks.executionAsyncResource()",
        "new AsyncResource('Late')", "new AsyncResource('Late', 5)",
        "resource.runInAsyncScope(() => {})"}) {
    EXPECT_EQ(env.RunString((std::string("try { ") + call +
                             "; 'no' } catch (e) { e.message }")
                                .c_str()),
              "asyncctx: the Runtime of this context has been destroyed")
        << call;
  }
  EXPECT_EQ(env.RunString("String(als.getStore())"), "undefined");
  EXPECT_EQ(env.RunString("try { snapshot.run(() => {}); 'no' } "
                          "catch (e) { e.message }"),
            "asyncctx: the Runtime of this context has been destroyed");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx

namespace asyncctx {
namespace test {
namespace {

// The runtime holds contexts weakly: installing into many short-lived
// contexts (with frames, hooks and resources in use) retains none of them.
TEST(RuntimeLifetimeTest, InstalledContextsAreCollected) {
  TestIsolate env;
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  auto native_contexts = [&] {
    env.CollectGarbage();
    env.CollectGarbage();
    v8::HeapStatistics stats;
    isolate->GetHeapStatistics(&stats);
    return stats.number_of_native_contexts();
  };
  size_t baseline = native_contexts();
  for (int i = 0; i < 50; i++) {
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> context = v8::Context::New(isolate);
    ASSERT_TRUE(env.runtime()->Install(context).FromMaybe(false));
    v8::Context::Scope context_scope(context);
    v8::Local<v8::Value> result;
    ASSERT_TRUE(v8::Script::Compile(
                    context, v8::String::NewFromUtf8Literal(isolate, R"JS(
      const als = new AsyncLocalStorage();
      asyncHooks.createHook({init() {}, destroy() {}}).enable();
      als.run({big: new Array(1000).fill(1)}, async () => {
        await { then(r) { r(); } };
        new AsyncResource('X');
      });
    )JS"))
                    .ToLocalChecked()
                    ->Run(context)
                    .ToLocal(&result));
    env.runtime()->RunMicrotasks(context);
  }
  env.PumpTasks();
  EXPECT_LE(native_contexts(), baseline);
}

// Destroying the Runtime from a microtask is one clear fatal message.
TEST_F(RuntimeDeathTest, RuntimeDestroyedFromAMicrotaskIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SetFunction(
            context(), "destroyRuntime",
            [](const v8::FunctionCallbackInfo<v8::Value>& info) {
              FunctionData<TestIsolate>()->DestroyRuntime();
            },
            &env());
        Run("queueMicrotask(destroyRuntime)");
        runtime()->RunMicrotasks(context());
      },
      "asyncctx: fatal: Runtime::~Runtime: the Runtime was destroyed while "
      "it was running JavaScript");
}

// Fatal errors go to the host's handler.
TEST(RuntimeFatalErrorDeathTest, FatalErrorsGoToTheHostHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RuntimeOptions options;
        options.on_fatal_error = [](const std::string& message) {
          std::fprintf(stderr, "host handler: %s\n", message.c_str());
          std::fflush(stderr);
          std::_Exit(7);
        };
        TestIsolate env(std::move(options));
        v8::Isolate::Scope isolate_scope(env.isolate());
        v8::HandleScope handle_scope(env.isolate());
        v8::Local<v8::Context> context = v8::Context::New(env.isolate());
        AsyncResource resource(context, "X");  // not installed
      },
      ::testing::ExitedWithCode(7),
      "host handler: asyncctx: fatal: AsyncResource: asyncctx is not "
      "installed in this context");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
