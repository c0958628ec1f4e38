// Copyright 2026 the asyncctx authors. All rights reserved.

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

TEST_F(RuntimeTest, InstallsTheGlobals) {
  EXPECT_EQ(RunString("typeof AsyncLocalStorage"), "function");
  EXPECT_EQ(RunString("typeof AsyncResource"), "function");
  EXPECT_EQ(RunString("typeof queueMicrotask"), "function");
  EXPECT_EQ(RunString("typeof AsyncContext.Variable"), "function");
  EXPECT_EQ(RunString("typeof AsyncContext.Snapshot"), "function");
  EXPECT_EQ(RunString("Object.keys(asyncHooks).sort().join()"),
            "AsyncLocalStorage,AsyncResource,asyncWrapProviders,createHook,"
            "executionAsyncId,executionAsyncResource,triggerAsyncId");
  EXPECT_EQ(RunString("asyncHooks.AsyncResource === AsyncResource"), "true");
}

TEST_F(RuntimeTest, InstallingTwiceThrows) {
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(runtime()->Install(context()).IsNothing());
  ASSERT_TRUE(try_catch.HasCaught());
  v8::String::Utf8Value message(isolate(), try_catch.Exception());
  EXPECT_NE(std::string(*message).find("already called"), std::string::npos);
}

TEST_F(RuntimeTest, CustomNamesAndOmittedGlobals) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  InstallOptions options;
  options.async_local_storage = "ALS";
  options.async_context = "";
  ASSERT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  EXPECT_EQ(RunStringIn(other, "typeof ALS"), "function");
  EXPECT_EQ(RunStringIn(other, "typeof AsyncLocalStorage"), "undefined");
  EXPECT_EQ(RunStringIn(other, "typeof AsyncContext"), "undefined");
}

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

// A script that ran in a context before Install() put setters for the
// binding names, and getters for V8's continuation-data accessors, on
// Object.prototype: Install hands them nothing (the binding objects have no
// prototype; only the extras object's own accessors are taken), and the
// stores stay private.
TEST_F(RuntimeTest, ObjectPrototypeSettersBeforeInstallSeeNoBinding) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  RunStringIn(other, R"JS(
    globalThis.caught = [];
    for (const name of ['getFrame', 'setFrame', 'swapFrame', 'restoreFrame',
                        'enqueueMicrotask', 'fields', 'stack', 'depth',
                        'hookFields', 'contextFields', 'constants',
                        'hostResourceAt', 'queueDestroy']) {
      Object.defineProperty(Object.prototype, name, {
        set(v) { caught.push(name); },
        get() { return undefined; },
        configurable: true,
      });
    }
    for (const name of ['getContinuationPreservedEmbedderData',
                        'setContinuationPreservedEmbedderData']) {
      Object.defineProperty(Object.prototype, name, {
        get() { caught.push(name); return () => undefined; },
        configurable: true,
      });
    }
  )JS");
  ASSERT_TRUE(runtime()->Install(other).FromMaybe(false));
  EXPECT_EQ(RunStringIn(other, R"JS(
    const als = new AsyncLocalStorage();
    const seen = als.run('secret', () => als.getStore());
    `${seen} ${String(als.getStore())} [${caught.join()}]`
  )JS"),
            "secret undefined []");
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
      "globalThis.snapshot = new AsyncContext.Snapshot();");
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

}  // namespace
}  // namespace test
}  // namespace asyncctx
