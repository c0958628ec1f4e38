// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Host AsyncResources, CallbackScope and MakeCallback, and the JavaScript
// AsyncResource's lazy destroy tracking.

#include <atomic>
#include <chrono>
#include <thread>

#include "asyncctx/testing.h"
#include "test/unittests/v8_fixture.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using AsyncResourceTest = V8Test;

class HostResourceTest : public V8Test {
 public:
  v8::Local<v8::Value> Eval(const char* source) { return Run(source); }
};

TEST_F(HostResourceTest, IdsTriggerAndResourceInsideTheCallback) {
  AsyncResource resource(context(), "Timeout");
  EXPECT_EQ(resource.trigger_async_id(), 1);
  EXPECT_GT(resource.async_id(), 1);
  v8::Local<v8::Function> fn =
      Eval(
          "(function() { return [asyncHooks.executionAsyncId(), "
          "asyncHooks.triggerAsyncId(), asyncHooks.executionAsyncResource()]; "
          "})")
          .As<v8::Function>();
  v8::Local<v8::Value> result =
      MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocalChecked();
  v8::Local<v8::Array> array = result.As<v8::Array>();
  EXPECT_EQ(array->Get(context(), 0).ToLocalChecked().As<v8::Number>()->Value(),
            resource.async_id());
  EXPECT_EQ(array->Get(context(), 1).ToLocalChecked().As<v8::Number>()->Value(),
            1);
  EXPECT_TRUE(array->Get(context(), 2)
                  .ToLocalChecked()
                  ->StrictEquals(resource.resource()));
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
}

TEST_F(HostResourceTest, CallbackRunsInTheFrameCapturedAtCreation) {
  Eval("globalThis.als = new AsyncLocalStorage();");
  v8::Local<v8::Function> create =
      Eval("(function(make) { return als.run('req-1', make); })")
          .As<v8::Function>();
  std::unique_ptr<AsyncResource> resource;
  v8::Local<v8::Function> make =
      v8::Function::New(
          context(),
          [](const v8::FunctionCallbackInfo<v8::Value>& info) {
            auto* out = static_cast<std::unique_ptr<AsyncResource>*>(
                info.Data().As<v8::External>()->Value());
            *out = std::make_unique<AsyncResource>(
                info.GetIsolate()->GetCurrentContext(), "IO");
          },
          v8::External::New(isolate(), &resource))
          .ToLocalChecked();
  v8::Local<v8::Value> argv[] = {make};
  create->Call(context(), v8::Undefined(isolate()), 1, argv).ToLocalChecked();
  ASSERT_NE(resource, nullptr);
  // enterWith in a previous callback must not leak into this one.
  Eval("als.enterWith('leaked')");
  v8::Local<v8::Function> read =
      Eval("(function() { return als.getStore(); })").As<v8::Function>();
  v8::Local<v8::Value> store =
      MakeCallback(resource.get(), v8::Undefined(isolate()), read, 0, nullptr)
          .ToLocalChecked();
  EXPECT_EQ(*v8::String::Utf8Value(isolate(), store), std::string("req-1"));
  // The outermost scope ends at the root frame: the next macrotask starts
  // clean.
  EXPECT_EQ(RunString("als.getStore()"), "undefined");
  // A nested scope restores the exact previous frame instead.
  Eval("als.enterWith('outer')");
  AsyncResource outer(context(), "Outer");
  {
    CallbackScope scope(&outer, CallbackScope::Checkpoint::kSkip);
    Eval("als.enterWith('inside-outer')");
    MakeCallback(resource.get(), v8::Undefined(isolate()), read, 0, nullptr)
        .ToLocalChecked();
    EXPECT_EQ(RunString("als.getStore()"), "inside-outer");
  }
}

TEST_F(HostResourceTest, OutermostScopeRunsTheCheckpointInTheRightFrame) {
  Eval("globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];");
  std::unique_ptr<AsyncResource> resource;
  {
    v8::Local<v8::Function> fn = Eval(
                                     "(function() { return als.run('x', () => "
                                     "new AsyncResource('Host')); })")
                                     .As<v8::Function>();
    fn->Call(context(), v8::Undefined(isolate()), 0, nullptr).ToLocalChecked();
  }
  {
    // Created inside a C++ ContextKey scope instead.
    ContextKey key(context(), "k");
    ContextKey::Scope scope(key, context(), v8::Number::New(isolate(), 5));
    resource = std::make_unique<AsyncResource>(context(), "Host");
  }
  v8::Local<v8::Function> fn =
      Eval(
          "(function() { Promise.resolve().then(() => seen.push("
          "asyncHooks.executionAsyncId() > 0)); })")
          .As<v8::Function>();
  MakeCallback(resource.get(), v8::Undefined(isolate()), fn, 0, nullptr)
      .ToLocalChecked();
  EXPECT_EQ(RunString("seen.join()"), "true");
}

TEST_F(HostResourceTest, NestedScopesRestoreAfterAThrowThreeDeep) {
  AsyncResource a(context(), "A"), b(context(), "B"), c(context(), "C");
  {
    CallbackScope sa(&a);
    {
      CallbackScope sb(&b);
      {
        CallbackScope sc(&c);
        v8::TryCatch try_catch(isolate());
        EXPECT_TRUE(Run("1").IsEmpty() == false);
        v8::Local<v8::Value> r;
        EXPECT_FALSE(v8::Script::Compile(
                         context(), v8::String::NewFromUtf8Literal(
                                        isolate(), "(() => { throw 1; })()"))
                         .ToLocalChecked()
                         ->Run(context())
                         .ToLocal(&r));
        EXPECT_TRUE(try_catch.HasCaught());
        sc.MarkAsFailed();
        EXPECT_EQ(runtime()->ExecutionStackDepth(), 3u);
        EXPECT_EQ(runtime()->ExecutionAsyncId(), c.async_id());
      }
      EXPECT_EQ(runtime()->ExecutionAsyncId(), b.async_id());
    }
    EXPECT_EQ(runtime()->ExecutionAsyncId(), a.async_id());
  }
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
}

TEST_F(HostResourceTest, JavaScriptScopesInsideAHostScopeAfterThrow) {
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    EXPECT_EQ(RunString(R"JS(
      const r1 = new AsyncResource('A'), r2 = new AsyncResource('B');
      let depthSeen;
      try {
        r1.runInAsyncScope(() => r2.runInAsyncScope(() => {
          depthSeen = asyncHooks.executionAsyncId() === r2.asyncId();
          throw new Error('boom');
        }));
      } catch (e) {}
      depthSeen + ':' + (asyncHooks.executionAsyncId() === asyncHooks.executionAsyncId())
    )JS"),
              "true:true");
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 1u);
    EXPECT_EQ(runtime()->ExecutionAsyncId(), host.async_id());
  }
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
}

TEST_F(HostResourceTest, TerminateExecutionInsideAScopeUnwindsTheStack) {
  AsyncResource host(context(), "Host");
  std::atomic<bool> started{false};
  v8::Isolate* iso = isolate();
  std::thread watchdog([&] {
    while (!started.load())
      std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    iso->TerminateExecution();
  });
  {
    CallbackScope scope(&host);
    v8::TryCatch try_catch(isolate());
    v8::Local<v8::Function> spin = Run(R"JS(
      (function(started) {
        const als = new AsyncLocalStorage();
        const r = new AsyncResource('Inner');
        started();
        als.run(1, () => r.runInAsyncScope(() => { for (;;) {} }));
      })
    )JS")
                                       .As<v8::Function>();
    v8::Local<v8::Value> argv[] = {
        v8::Function::New(
            context(),
            [](const v8::FunctionCallbackInfo<v8::Value>& info) {
              static_cast<std::atomic<bool>*>(
                  info.Data().As<v8::External>()->Value())
                  ->store(true);
            },
            v8::External::New(isolate(), &started))
            .ToLocalChecked()};
    EXPECT_TRUE(
        spin->Call(context(), v8::Undefined(isolate()), 1, argv).IsEmpty());
    EXPECT_TRUE(try_catch.HasTerminated());
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 2u);  // Host + Inner.
    scope.MarkAsFailed();
  }
  watchdog.join();
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
  // The isolate keeps working, at the root frame.
  EXPECT_EQ(RunString("new AsyncLocalStorage().getStore() === undefined && "
                      "asyncHooks.executionAsyncId()"),
            "1");
}

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
  EXPECT_EQ(RuntimeTesting::TrackedResourceCount(*env.runtime()), 100000u);
  env.CollectGarbage();
  // The runtime and isolate go away with cleanup tasks still pending.
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
