// Copyright 2026 the asyncctx authors. All rights reserved.

#include "test/unittests/reporting_fixture.h"

#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {

std::string ToString(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 != nullptr ? std::string(*utf8, utf8.length()) : "<?>";
}

RuntimeOptions Reports::Options() {
  RuntimeOptions options;
  options.on_hook_error = [this](v8::Isolate*, const HookError& error) {
    hook_errors.push_back(error.hook_name + "|" + error.message);
  };
  options.on_uncaught_exception = [this](v8::Local<v8::Context> context,
                                         v8::Local<v8::Value> exception,
                                         v8::Local<v8::Message>) {
    uncaught.push_back(ToString(host_compat::IsolateOf(context), exception));
  };
  return options;
}

std::string Reports::Summary() const {
  std::string out;
  for (const auto& e : hook_errors)
    out += "hook error: " + e + "\n";
  for (const auto& e : uncaught)
    out += "uncaught: " + e + "\n";
  return out;
}

ReportingTest::ReportingTest()
    : env_(std::make_unique<TestIsolate>(reports_.Options())) {
  isolate_scope_.emplace(env_->isolate());
  handle_scope_.emplace(env_->isolate());
  context_scope_.emplace(env_->context());
}

ReportingTest::~ReportingTest() {
  context_scope_.reset();
  handle_scope_.reset();
  isolate_scope_.reset();
  env_.reset();
}

void ReportingTest::ExpectAtRest(const char* where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
  EXPECT_EQ(runtime()->TriggerAsyncId(), 0);
  EXPECT_EQ(RunString(R"JS(
    [asyncHooks.executionAsyncId(), asyncHooks.triggerAsyncId(),
     Object.getPrototypeOf(asyncHooks.executionAsyncResource()) ===
         Object.prototype,
     (globalThis.probes || []).every(
         (p) => (p.get ? p.get() : p.getStore()) === undefined)].join()
  )JS"),
            "1,0,true,true");
}

TerminationTest::TerminationTest() {
  context()
      ->Global()
      ->Set(context(),
            v8::String::NewFromUtf8Literal(isolate(), "terminateNow"),
            v8::Function::New(
                context(),
                [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                  info.GetIsolate()->TerminateExecution();
                })
                .ToLocalChecked())
      .Check();
  RunString(
      "globalThis.als = new AsyncLocalStorage();"
      "globalThis.probes = [als];");
}

void TerminationTest::RunTerminated(const char* source) {
  v8::HandleScope scope(isolate());
  v8::TryCatch try_catch(isolate());
  v8::Local<v8::Value> result;
  EXPECT_FALSE(v8::Script::Compile(
                   context(),
                   v8::String::NewFromUtf8(isolate(), source).ToLocalChecked())
                   .ToLocalChecked()
                   ->Run(context())
                   .ToLocal(&result));
  EXPECT_TRUE(try_catch.HasTerminated());
}

void TerminationTest::Recover() {
  isolate()->CancelTerminateExecution();
  runtime()->RunMicrotasks(context());
}

}  // namespace test
}  // namespace asyncctx
