// Copyright 2026 the asyncctx authors. All rights reserved.
//
// AsyncResource: ids, moves, EmitAsyncInit/EmitAsyncDestroy, misuse, and the
// JavaScript AsyncResource's validation and lazy destroy tracking.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "asyncctx/testing.h"
#include "test/unittests/v8_fixture.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using AsyncResourceTest = V8Test;
using AsyncResourceDeathTest = V8Test;

TEST_F(AsyncResourceTest, JavaScriptValidationMatchesNode) {
  EXPECT_EQ(RunString("try { new AsyncResource(1) } catch (e) { e.code + ': ' "
                      "+ e.message }"),
            "ERR_INVALID_ARG_TYPE: The \"type\" argument must be of type "
            "string. Received type number (1)");
  EXPECT_EQ(
      RunString("try { new AsyncResource('x', {triggerAsyncId: -2}) } "
                "catch (e) { e.name + ' ' + e.code + ': ' + e.message }"),
      "RangeError ERR_INVALID_ASYNC_ID: Invalid triggerAsyncId value: -2");
  EXPECT_EQ(
      RunString(
          "try { AsyncResource('x') } catch (e) { e instanceof TypeError }"),
      "true");
  EXPECT_EQ(RunString("new AsyncResource('x', 7).triggerAsyncId()"), "7");
}

TEST_F(AsyncResourceTest, NoDestroyTrackingWithoutADestroyHook) {
  Run("for (let i = 0; i < 100000; i++) new AsyncResource('X');");
  EXPECT_EQ(RuntimeTesting::TrackedResourceCount(*runtime()), 0u);
  Run("globalThis.h = asyncHooks.createHook({init() {}}).enable();"
      "for (let i = 0; i < 1000; i++) new AsyncResource('X');");
  EXPECT_EQ(RuntimeTesting::TrackedResourceCount(*runtime()), 0u);
}

TEST_F(AsyncResourceTest, DestroyTrackingWithADestroyHook) {
  Run("globalThis.destroyed = new Set();"
      "globalThis.h = asyncHooks.createHook({destroy(id) { destroyed.add(id); "
      "}}).enable();"
      "globalThis.manual = new AsyncResource('M', {requireManualDestroy: "
      "true});"
      "(() => { for (let i = 0; i < 100; i++) new AsyncResource('X'); })();"
      "globalThis.firstId = new AsyncResource('Y').asyncId();");
  EXPECT_EQ(RuntimeTesting::TrackedResourceCount(*runtime()), 101u);
  for (int i = 0; i < 3 && RuntimeTesting::TrackedResourceCount(*runtime()) > 0;
       i++) {
    env().CollectGarbage();
    env().PumpTasks();
  }
  EXPECT_EQ(RuntimeTesting::TrackedResourceCount(*runtime()), 0u);
  EXPECT_EQ(RunString("destroyed.size >= 101 && destroyed.has(firstId)"),
            "true");
  Run("manual.emitDestroy(); manual.emitDestroy();");
  env().PumpTasks();
  EXPECT_EQ(RunString("destroyed.has(manual.asyncId())"), "true");
}

TEST(RuntimeTeardownTest, DisposingWithTrackedResourcesPendingIsClean) {
  TestIsolate env;
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.Run(
      "asyncHooks.createHook({destroy() {}}).enable();"
      "globalThis.keep = [];"
      "for (let i = 0; i < 100000; i++) { const r = new AsyncResource('X');"
      "  if (i % 2) keep.push(r); }");
  // The half kept alive is still tracked; the GC may already have taken
  // some of the others (their ids wait in the destroy queue).
  size_t tracked = RuntimeTesting::TrackedResourceCount(*env.runtime());
  EXPECT_GE(tracked, 50000u);
  EXPECT_LE(tracked, 100000u);
  env.CollectGarbage();
  // The runtime and isolate go away with tracked objects and queued destroys
  // still pending.
}

// Destroying a resource on another thread is one clear fatal message.
TEST_F(AsyncResourceDeathTest, ResourceDestroyedOnAnotherThreadIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto resource = std::make_unique<AsyncResource>(context(), "Job");
        std::thread([&] { resource.reset(); }).join();
      },
      "asyncctx: fatal: AsyncResource::~AsyncResource: destroyed on a thread "
      "that has not entered its isolate");
}

// Node-style EmitAsyncInit / EmitAsyncDestroy.
TEST_F(AsyncResourceTest, EmitAsyncInitAndDestroyWithPlainIds) {
  Run("globalThis.events = [];"
      "asyncHooks.createHook({"
      "  init(id, type, trigger) { events.push(type + ':' + id + ':' + "
      "trigger); },"
      "  destroy(id) { events.push('destroy:' + id); }}).enable();");
  AsyncIds ids = EmitAsyncInit(context(), "HostOp");
  EXPECT_GT(ids.async_id, 1);
  EXPECT_EQ(ids.trigger_async_id, 1);
  EmitAsyncDestroy(context(), ids);
  runtime()->EmitPendingDestroys();
  std::string id = std::to_string(static_cast<int>(ids.async_id));
  EXPECT_EQ(RunString("events.join()"), "HostOp:" + id + ":1,destroy:" + id);
}

// AsyncResource is movable; the moved-to object owns the
// ids, the frame and the single destroy.
TEST_F(AsyncResourceTest, AsyncResourceIsMovable) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.destroyed = [];"
      "asyncHooks.createHook({destroy(id) { destroyed.push(id); }}).enable();"
      "als.enterWith('moved');");
  AsyncResource original(context(), "X");
  double id = original.async_id();
  Run("als.enterWith(undefined)");
  std::vector<AsyncResource> resources;
  resources.push_back(std::move(original));
  resources.reserve(8);  // moves again
  v8::Local<v8::Function> fn = CompileFunction(
      context(),
      "(function() { return asyncHooks.executionAsyncId() + ':' + "
      "als.getStore(); })");
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      MakeCallback(&resources[0], v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocal(&result));
  EXPECT_EQ(std::string(*v8::String::Utf8Value(isolate(), result)),
            std::to_string(static_cast<int>(id)) + ":moved");
  resources.clear();
  runtime()->EmitPendingDestroys();
  EXPECT_EQ(RunString("destroyed.join()"),
            std::to_string(static_cast<int>(id)));
}

// AsyncResource(context, type) needs only an entered isolate, not an entered
// context: a host creates timers from its event loop, between callbacks,
// outside of any context, and runs them there. Run in a child process so
// that a crash fails this test only.
TEST(AsyncResourceOutsideContextDeathTest, CreatedAndRunOutsideItsContext) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        TestIsolate env;
        v8::Isolate::Scope isolate_scope(env.isolate());
        v8::HandleScope handle_scope(env.isolate());
        // No Context::Scope: the host's loop is between callbacks.
        {
          AsyncResource timer(env.context(), "Timeout");
          CallbackScope scope(&timer);
        }
        std::fprintf(stderr, "created and ran\n");
        std::fflush(nullptr);
        std::_Exit(0);  // the isolate is alive: skip LeakSanitizer's check
      },
      ::testing::ExitedWithCode(0), "created and ran");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
