// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Test fixtures that embed a real V8 isolate with asyncctx installed.

#ifndef ASYNCCTX_TEST_UNITTESTS_V8_FIXTURE_H_
#define ASYNCCTX_TEST_UNITTESTS_V8_FIXTURE_H_

#include <memory>
#include <optional>
#include <string>

#include "asyncctx/asyncctx.h"
#include "gtest/gtest.h"
#include "v8-array-buffer.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-platform.h"

namespace asyncctx {
namespace test {

// The process-wide platform, initialized once by test_main.cc.
v8::Platform* TestPlatform();

// Defines the global `name` of `context` as a native function. `data`, if
// not null, is what FunctionData<T>() returns inside the function (a global
// rather than a v8::External, whose API differs between V8 versions).
void SetFunction(v8::Local<v8::Context> context,
                 const char* name,
                 v8::FunctionCallback callback,
                 void* data = nullptr);
void* FunctionDataPointer();
template <typename T>
T* FunctionData() {
  return static_cast<T*>(FunctionDataPointer());
}

// Runs `source` in `context`, whose value must be a function, and returns it.
v8::Local<v8::Function> CompileFunction(v8::Local<v8::Context> context,
                                        const char* source);

// Owns one isolate (kExplicit microtasks), a Runtime and one installed
// context, usable on any thread. Tests use it directly or through V8Test.
class TestIsolate {
 public:
  explicit TestIsolate(RuntimeOptions options = {},
                       const InstallOptions& install = {});
  ~TestIsolate();

  v8::Isolate* isolate() const { return isolate_; }
  Runtime* runtime() const { return runtime_.get(); }
  v8::Local<v8::Context> context() const { return context_.Get(isolate_); }

  // Runs `source` as a script; on an exception, records it as a test
  // failure and returns an empty handle.
  v8::Local<v8::Value> Run(const std::string& source);
  // Runs `source`, then the microtask checkpoint.
  v8::Local<v8::Value> RunAndDrain(const std::string& source);
  // Runs `source` and returns its result converted to a string.
  std::string RunString(const std::string& source);
  // The same two in another context of this isolate.
  v8::Local<v8::Value> RunIn(v8::Local<v8::Context> context,
                             const std::string& source);
  std::string RunStringIn(v8::Local<v8::Context> context,
                          const std::string& source);
  double RunNumber(const std::string& source);

  // Runs pending platform tasks (FinalizationRegistry cleanup, destroy
  // emission) and microtasks.
  void PumpTasks();
  void CollectGarbage();

  void DestroyRuntime() { runtime_.reset(); }

 private:
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_;
  std::unique_ptr<Runtime> runtime_;
  v8::Global<v8::Context> context_;
};

// A fixture with isolate entered, a HandleScope and the context entered.
class V8Test : public ::testing::Test {
 protected:
  V8Test();
  ~V8Test() override;

  v8::Isolate* isolate() const { return env_->isolate(); }
  Runtime* runtime() const { return env_->runtime(); }
  v8::Local<v8::Context> context() const { return env_->context(); }
  TestIsolate& env() { return *env_; }

  v8::Local<v8::Value> Run(const std::string& source) {
    return env_->Run(source);
  }
  std::string RunString(const std::string& source) {
    return env_->RunString(source);
  }
  std::string RunStringIn(v8::Local<v8::Context> context,
                          const std::string& source) {
    return env_->RunStringIn(context, source);
  }
  double RunNumber(const std::string& source) {
    return env_->RunNumber(source);
  }

 private:
  std::unique_ptr<TestIsolate> env_;
  std::optional<v8::Isolate::Scope> isolate_scope_;
  std::optional<v8::HandleScope> handle_scope_;
  std::optional<v8::Context::Scope> context_scope_;
};

}  // namespace test
}  // namespace asyncctx

#endif  // ASYNCCTX_TEST_UNITTESTS_V8_FIXTURE_H_
