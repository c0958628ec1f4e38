// Copyright 2026 the asyncctx authors. All rights reserved.
//
// createHook events for host resources, and the host's hook error handler.

#include <string>
#include <vector>

#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using HooksTest = V8Test;

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

TEST(HookErrorTest, HostHandlerReceivesTheHookNameAndStack) {
  std::vector<std::string> errors;
  RuntimeOptions options;
  options.on_hook_error = [&](v8::Isolate*, const HookError& error) {
    errors.push_back(error.hook_name + "|" + error.message);
  };
  TestIsolate env(std::move(options));
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.Run(R"JS(
    asyncHooks.createHook({init() { throw new Error('bad init'); }}).enable();
    new AsyncResource('X');
  )JS");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "init|Error: bad init");
}

TEST(UncaughtTest, MicrotaskExceptionsReachTheHostInTheirFrames) {
  std::vector<std::string> errors;
  RuntimeOptions options;
  options.on_uncaught_exception = [&](v8::Local<v8::Context> context,
                                      v8::Local<v8::Value> exception,
                                      v8::Local<v8::Message>) {
    errors.push_back(
        *v8::String::Utf8Value(host_compat::IsolateOf(context), exception));
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
  EXPECT_EQ(errors[0], "Error: bare");
  EXPECT_EQ(errors[1], "Error: wrapped");
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

}  // namespace
}  // namespace test
}  // namespace asyncctx
