// Copyright 2026 the asyncctx authors. All rights reserved.

#include "test/unittests/v8_fixture.h"

#include "tools/v8_host/v8_host.h"

#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {

TestIsolate::TestIsolate(RuntimeOptions options, const InstallOptions& install)
    : allocator_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator_.get();
  isolate_ = host::NewIsolate(params);
  isolate_->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  if (options.platform == nullptr)
    options.platform = TestPlatform();
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::HandleScope handle_scope(isolate_);
  runtime_ = Runtime::Create(isolate_, std::move(options));
  v8::Local<v8::Context> context = v8::Context::New(isolate_);
  EXPECT_TRUE(runtime_->Install(context, install).FromMaybe(false));
  context_.Reset(isolate_, context);
}

TestIsolate::~TestIsolate() {
  {
    v8::Isolate::Scope isolate_scope(isolate_);
    context_.Reset();
    runtime_.reset();
  }
  host::DisposeIsolate(isolate_);
}

v8::Local<v8::Value> TestIsolate::Run(const std::string& source) {
  return RunIn(context(), source);
}

v8::Local<v8::Value> TestIsolate::RunIn(v8::Local<v8::Context> context,
                                        const std::string& source) {
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::EscapableHandleScope scope(isolate_);
  v8::Context::Scope context_scope(context);
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::String> code =
      v8::String::NewFromUtf8(isolate_, source.c_str()).ToLocalChecked();
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> result;
  if (!v8::Script::Compile(context, code).ToLocal(&script) ||
      !script->Run(context).ToLocal(&result)) {
    v8::String::Utf8Value error(isolate_, try_catch.Exception());
    ADD_FAILURE() << "script threw: " << (*error ? *error : "?") << "\n"
                  << source;
    return {};
  }
  return scope.Escape(result);
}

v8::Local<v8::Value> TestIsolate::RunAndDrain(const std::string& source) {
  v8::EscapableHandleScope scope(isolate_);
  v8::Local<v8::Value> result = Run(source);
  runtime_->RunMicrotasks(context());
  if (result.IsEmpty())
    return {};
  return scope.Escape(result);
}

std::string TestIsolate::RunString(const std::string& source) {
  return RunStringIn(context(), source);
}

std::string TestIsolate::RunStringIn(v8::Local<v8::Context> context,
                                     const std::string& source) {
  v8::HandleScope scope(isolate_);
  v8::Local<v8::Value> result = RunIn(context, source);
  if (result.IsEmpty())
    return "<exception>";
  v8::String::Utf8Value utf8(isolate_, result);
  return *utf8 ? *utf8 : "<unprintable>";
}

double TestIsolate::RunNumber(const std::string& source) {
  v8::HandleScope scope(isolate_);
  v8::Local<v8::Value> result = Run(source);
  if (result.IsEmpty())
    return -12345;
  return result->NumberValue(context()).FromMaybe(-12345);
}

void TestIsolate::PumpTasks() {
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::HandleScope scope(isolate_);
  while (host::PumpMessageLoop(isolate_)) {
  }
  runtime_->RunMicrotasks(context());
}

void TestIsolate::CollectGarbage() {
  // V8 14.6 marks the heap of the current isolate only: a collection
  // requested from a thread where the isolate is not entered crashes in
  // MarkCompactCollector::ProcessEphemerons (about half the runs).
  v8::Isolate::Scope isolate_scope(isolate_);
  isolate_->RequestGarbageCollectionForTesting(
      v8::Isolate::kFullGarbageCollection);
}

namespace {
void* g_function_data = nullptr;
}  // namespace

void SetFunction(v8::Local<v8::Context> context,
                 const char* name,
                 v8::FunctionCallback callback,
                 void* data) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (data != nullptr)
    g_function_data = data;
  context->Global()
      ->Set(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked(),
            v8::Function::New(context, callback).ToLocalChecked())
      .Check();
}

void* FunctionDataPointer() {
  return g_function_data;
}

v8::Local<v8::Function> CompileFunction(v8::Local<v8::Context> context,
                                        const char* source) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope scope(context);
  return handle_scope.Escape(
      v8::Script::Compile(
          context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
          .ToLocalChecked()
          ->Run(context)
          .ToLocalChecked()
          .As<v8::Function>());
}

V8Test::V8Test() : env_(std::make_unique<TestIsolate>()) {
  isolate_scope_.emplace(env_->isolate());
  handle_scope_.emplace(env_->isolate());
  context_scope_.emplace(env_->context());
}

V8Test::~V8Test() {
  context_scope_.reset();
  handle_scope_.reset();
  isolate_scope_.reset();
  env_.reset();
}

}  // namespace test
}  // namespace asyncctx
