// Copyright 2026 the asyncctx authors. All rights reserved.
//
// createHook events for host resources, the host's hook error handler and
// the default one, and hooks that throw.

#include <string>
#include <vector>

#include "test/unittests/reporting_fixture.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using HooksTest = V8Test;
using ThrowingHookTest = ReportingTest;

TEST_F(HooksTest, HostResourceEventsInOrder) {
  Run(R"JS(
    globalThis.events = [];
    asyncHooks.createHook({
      init(id, type, trigger, resource) { events.push(`init:${type}:${trigger}`); },
      before(id) { events.push('before:' + (id === asyncHooks.executionAsyncId())); },
      after(id) { events.push('after'); },
      destroy(id) { events.push('destroy'); },
    }).enable();
  )JS");
  {
    AsyncResource resource(context(), "Timeout");
    v8::Local<v8::Function> fn =
        Run("(function() { events.push('callback'); })").As<v8::Function>();
    MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
        .ToLocalChecked();
  }
  env().PumpTasks();
  EXPECT_EQ(RunString("events.join()"),
            "init:Timeout:1,before:true,callback,after,destroy");
}

TEST_F(HooksTest, PromiseEventsOnlyWhileAHookWantsThem) {
  Run(R"JS(
    globalThis.inits = 0;
    globalThis.hook = asyncHooks.createHook({init(id, type) { if (type === 'PROMISE') inits++; }});
    Promise.resolve();
    hook.enable();
    Promise.resolve().then(() => {});
    hook.disable();
    Promise.resolve();
  )JS");
  env().PumpTasks();
  EXPECT_EQ(RunNumber("inits"), 2);
}

// A hook enabled first thing in a context (Install runs no module of the
// promise hooks: asyncHooks runs it before createHook can be called) sees
// the context's promises.
TEST_F(HooksTest, AHookEnabledFirstInAFreshContextSeesPromises) {
  v8::Local<v8::Context> fresh = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(fresh).FromMaybe(false));
  EXPECT_EQ(RunStringIn(fresh, R"JS(
    globalThis.types = [];
    asyncHooks.createHook({init(id, type) { types.push(type); }}).enable();
    Promise.resolve().then(() => {});
    types.join()
  )JS"),
            "PROMISE,PROMISE");
}

TEST(HookErrorTest, HostHandlerReceivesTheHookNameAndStack) {
  std::vector<std::string> errors;
  std::vector<std::string> stacks;
  RuntimeOptions options;
  options.on_hook_error = [&](v8::Isolate*, const HookError& error) {
    errors.push_back(error.hook_name + "|" + error.message);
    stacks.push_back(error.stack);
  };
  TestIsolate env(std::move(options));
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.Run(R"JS(
    function throwingInit() { throw new Error('bad init'); }
    asyncHooks.createHook({init: throwingInit}).enable();
    new AsyncResource('X');
  )JS");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "init|Error: bad init");
  // The stack starts with the error and names the hook's function.
  EXPECT_EQ(stacks[0].rfind("Error: bad init\n", 0), 0u) << stacks[0];
  EXPECT_NE(stacks[0].find("throwingInit ("), std::string::npos) << stacks[0];
}

TEST(UncaughtTest, MicrotaskExceptionsReachTheHostInTheirFrames) {
  std::vector<std::string> errors;
  RuntimeOptions options;
  options.on_uncaught_exception = [&](v8::Local<v8::Context> context,
                                      v8::Local<v8::Value> exception,
                                      v8::Local<v8::Message>) {
    // The handler runs in the frame of the callback that threw.
    v8::Isolate* isolate = host_compat::IsolateOf(context);
    v8::Local<v8::Value> store =
        v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                         isolate, "String(als.getStore())"))
            .ToLocalChecked()
            ->Run(context)
            .ToLocalChecked();
    errors.push_back(std::string(*v8::String::Utf8Value(isolate, exception)) +
                     "@" + *v8::String::Utf8Value(isolate, store));
  };
  TestIsolate env(std::move(options));
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.RunAndDrain(R"JS(
    globalThis.als = new AsyncLocalStorage();
    globalThis.seen = [];
    queueMicrotask(() => { throw new Error('bare'); });
    als.run('a', () => queueMicrotask(() => { throw new Error('wrapped'); }));
    als.run('b', () => queueMicrotask(() => seen.push(als.getStore())));
    queueMicrotask(() => seen.push(String(als.getStore())));
  )JS");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "Error: bare@undefined");
  EXPECT_EQ(errors[1], "Error: wrapped@a");
  EXPECT_EQ(env.RunString("seen.join()"), "b,undefined");
}

TEST(UnhandledRejectionTest, ReportedInTheRejectingFrame) {
  std::vector<std::string> reports;
  RuntimeOptions options;
  options.on_unhandled_rejection = [&](v8::Local<v8::Context> context,
                                       v8::Local<v8::Promise>,
                                       v8::Local<v8::Value> reason) {
    v8::Isolate* isolate = host_compat::IsolateOf(context);
    v8::Local<v8::Value> store =
        v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                         isolate, "String(als.getStore())"))
            .ToLocalChecked()
            ->Run(context)
            .ToLocalChecked();
    reports.push_back(std::string(*v8::String::Utf8Value(isolate, reason)) +
                      "@" + *v8::String::Utf8Value(isolate, store));
  };
  TestIsolate env(std::move(options));
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.RunAndDrain(R"JS(
    globalThis.als = new AsyncLocalStorage();
    als.run('req-7', async () => { await null; throw 'boom'; });
    als.run('req-8', () => Promise.reject('handled').catch(() => {}));
  )JS");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0], "boom@req-7");
}

// The default hook-error handler stops JavaScript but does
// not exit the process.
TEST_F(HooksTest, DefaultHookErrorHandlerDoesNotExit) {
  Run("asyncHooks.createHook({init() { throw new Error('hook'); }}).enable();");
  ::testing::internal::CaptureStderr();
  {
    v8::TryCatch try_catch(isolate());
    AsyncResource resource(context(), "X");
  }
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("Error thrown in async hook 'init'"),
            std::string::npos);
  {
    // JavaScript is terminated (at the latest when it next runs).
    v8::TryCatch try_catch(isolate());
    (void)v8::Script::Compile(context(),
                              v8::String::NewFromUtf8Literal(isolate(), "1"))
        .ToLocalChecked()
        ->Run(context())
        .IsEmpty();
    EXPECT_TRUE(try_catch.HasTerminated() ||
                isolate()->IsExecutionTerminating());
  }
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(RunString("'still here'"), "still here");
}

// Every hook kind throws, for every kind of resource. The host's handler
// (which returns, unlike Node's default) gets each error; callbacks run in
// their frames and the state is restored.
TEST_F(ThrowingHookTest, ThrowingHooksReachTheHandlerAndStateIsRestored) {
  RunString(R"JS(
    globalThis.als = new AsyncLocalStorage();
    globalThis.probes = [als];
    globalThis.seen = [];
    globalThis.hooks = ['init', 'before', 'after', 'destroy', 'promiseResolve']
        .map((kind) => asyncHooks.createHook({
          [kind]() { throw new Error('hook ' + kind); },
        }).enable());
    als.run('req', () => {
      const r = new AsyncResource('R');
      r.runInAsyncScope(() => seen.push('runInAsyncScope:' + als.getStore()));
      r.emitDestroy();
      AsyncResource.bind(() => seen.push('bind:' + als.getStore()))();
      queueMicrotask(() => seen.push('microtask:' + als.getStore()));
      Promise.resolve().then(() => seen.push('then:' + als.getStore()));
      (async () => {
        await {then(resolve) { resolve(); }};
        seen.push('await:' + als.getStore());
      })();
    });
    globalThis.hostCallback = () => seen.push('host:' + als.getStore());
  )JS");
  runtime()->RunMicrotasks(context());
  {
    AsyncResource host(context(), "Host");
    v8::Local<v8::Function> fn = env().Run("hostCallback").As<v8::Function>();
    EXPECT_FALSE(MakeCallback(&host, v8::Undefined(isolate()), fn, 0, nullptr)
                     .IsEmpty());
  }
  env().PumpTasks();
  EXPECT_EQ(RunString("seen.sort().join()"),
            "await:req,bind:req,host:undefined,microtask:req,"
            "runInAsyncScope:req,then:req");
  std::string errors;
  for (const std::string& e : reports_.hook_errors) {
    std::string kind = e.substr(0, e.find('|'));
    if (errors.find(kind + ",") == std::string::npos)
      errors += kind + ",";
    EXPECT_EQ(e.substr(e.find('|') + 1), "Error: hook " + kind);
  }
  EXPECT_EQ(errors, "init,before,after,promiseResolve,destroy,");
  EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
  RunString("for (const h of hooks) h.disable();");
  ExpectAtRest("after throwing hooks");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
