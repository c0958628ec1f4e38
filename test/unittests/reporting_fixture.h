// Copyright 2026 the asyncctx authors. All rights reserved.
//
// A fixture that records what the runtime reports to the host (hook errors,
// uncaught exceptions) instead of printing and exiting, and checks that the
// isolate is back at rest after a fault.

#ifndef ASYNCCTX_TEST_UNITTESTS_REPORTING_FIXTURE_H_
#define ASYNCCTX_TEST_UNITTESTS_REPORTING_FIXTURE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "test/unittests/v8_fixture.h"

namespace asyncctx {
namespace test {

// `value` converted to a string ("<?>" if it cannot be).
std::string ToString(v8::Isolate* isolate, v8::Local<v8::Value> value);

// What the runtime reported to the host, instead of printing and exiting.
struct Reports {
  std::vector<std::string> hook_errors;  // "hook|message"
  std::vector<std::string> uncaught;

  // Options whose handlers record into this object.
  RuntimeOptions Options();
  // Every report, one per line.
  std::string Summary() const;
};

// A TestIsolate whose hook errors and uncaught exceptions are recorded.
class ReportingTest : public ::testing::Test {
 protected:
  ReportingTest();
  ~ReportingTest() override;

  v8::Isolate* isolate() { return env_->isolate(); }
  Runtime* runtime() { return env_->runtime(); }
  v8::Local<v8::Context> context() { return env_->context(); }
  TestIsolate& env() { return *env_; }
  v8::Local<v8::Value> Run(const std::string& source) {
    return env_->Run(source);
  }
  std::string RunString(const std::string& source) {
    return env_->RunString(source);
  }

  // Expects the state every macrotask must start from: an empty execution
  // stack, the top-level ids, and every store and variable in
  // `globalThis.probes` unset.
  void ExpectAtRest(const char* where);

  Reports reports_;
  std::unique_ptr<TestIsolate> env_;
  std::optional<v8::Isolate::Scope> isolate_scope_;
  std::optional<v8::HandleScope> handle_scope_;
  std::optional<v8::Context::Scope> context_scope_;
};

// A ReportingTest whose context has `terminateNow()` (terminates the isolate
// from inside JavaScript, so the next statement never runs) and a store
// `als` among the probes.
class TerminationTest : public ReportingTest {
 protected:
  TerminationTest();

  // Runs `source` as a top-level script that is expected to be terminated.
  void RunTerminated(const char* source);
  // What a host does after a termination before its next macrotask.
  void Recover();
};

}  // namespace test
}  // namespace asyncctx

#endif  // ASYNCCTX_TEST_UNITTESTS_REPORTING_FIXTURE_H_
