// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/rejection_tracker.h"

#include <string>
#include <vector>

#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-container.h"
#include "v8-function.h"
#include "v8-primitive.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

using RejectionTrackerTest = V8Test;

// 100k rejected promises handled late, newest first: each late handler
// finds its entry by identity hash, so the work is bounded by the number of
// handlers, whatever their order (a scan of the pending list per handler
// would take many seconds).
TEST_F(RejectionTrackerTest, LateCatchNewestFirstIsConstantTimePerPromise) {
  constexpr int kCount = 100000;
  v8::Local<v8::Value> array_value = Run(R"JS(
    (() => {
      const promises = [];
      for (let i = 0; i < 100000; i++) {
        promises.push(Promise.reject(new Error('r' + i)));
      }
      return promises;
    })()
  )JS");
  ASSERT_TRUE(array_value->IsArray());
  v8::Local<v8::Array> promises = array_value.As<v8::Array>();
  ASSERT_EQ(promises->Length(), static_cast<uint32_t>(kCount));

  RejectionTracker tracker(isolate());
  for (int i = 0; i < kCount; i++) {
    v8::Local<v8::Promise> promise =
        promises->Get(context(), i).ToLocalChecked().As<v8::Promise>();
    tracker.OnRejectWithNoHandler(promise, promise->Result());
  }
  EXPECT_EQ(tracker.size(), static_cast<size_t>(kCount));
  // Newest first, except the five oldest, which stay unhandled.
  for (int i = kCount - 1; i >= 5; i--) {
    v8::HandleScope scope(isolate());
    tracker.OnHandlerAdded(
        promises->Get(context(), i).ToLocalChecked().As<v8::Promise>());
  }
  EXPECT_EQ(tracker.size(), 5u);
  // A linear scan makes about kCount^2 / 2 comparisons here.
  EXPECT_LE(tracker.comparisons(), static_cast<size_t>(2 * kCount));

  std::vector<std::string> reported;
  tracker.Process([&](v8::Local<v8::Context>, v8::Local<v8::Promise>,
                      v8::Local<v8::Value> reason) {
    reported.push_back(*v8::String::Utf8Value(isolate(), reason));
  });
  ASSERT_EQ(reported.size(), 5u);
  EXPECT_EQ(reported[0], "Error: r0");
  EXPECT_EQ(reported[4], "Error: r4");
  EXPECT_EQ(tracker.size(), 0u);
}

// The same through V8's promise-reject callback and the runtime: a handler
// attached in any order before the checkpoint ends is never reported.
TEST(UnhandledRejectionTest, LateCatchInAnyOrderIsNotReported) {
  std::vector<std::string> reports;
  RuntimeOptions options;
  options.on_unhandled_rejection = [&](v8::Local<v8::Context> context,
                                       v8::Local<v8::Promise>,
                                       v8::Local<v8::Value> reason) {
    reports.push_back(
        *v8::String::Utf8Value(host_compat::IsolateOf(context), reason));
  };
  TestIsolate env(std::move(options));
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.RunAndDrain(R"JS(
    const promises = [];
    for (let i = 0; i < 20000; i++) promises.push(Promise.reject(i));
    for (let i = promises.length - 1; i > 0; i--) promises[i].catch(() => {});
  )JS");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0], "0");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
