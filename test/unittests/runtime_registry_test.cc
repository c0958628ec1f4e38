// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The registry never hands out a runtime whose isolate is gone: isolates
// disposed without destroying their runtimes, and new isolates that V8
// places at the same addresses, get fresh runtimes from Runtime::New, and
// Runtime::From never returns the dead one. The dead isolate's runtime is
// freed when V8 tears the isolate's heap down.

#include <cstdio>
#include <memory>
#include <set>
#include <vector>

#include "asyncctx/runtime.h"
#include "asyncctx/testing.h"
#include "gtest/gtest.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

TEST(RuntimeRegistryTest, DisposedIsolatesNeverLeaveARuntimeBehind) {
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  std::set<v8::Isolate*> seen;
  int reused = 0;
  for (int i = 0; i < 50; i++) {
    v8::Isolate::CreateParams params;
    params.array_buffer_allocator = allocator.get();
    v8::Isolate* isolate = host::NewIsolate(params);
    isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
    if (!seen.insert(isolate).second)
      reused++;
    {
      v8::Isolate::Scope isolate_scope(isolate);
      v8::HandleScope handle_scope(isolate);
      ASSERT_EQ(Runtime::From(isolate), nullptr) << i;
      absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::New(isolate);
      ASSERT_TRUE(runtime.ok()) << i << ": " << runtime.status();
      EXPECT_EQ(Runtime::From(isolate), runtime->get());
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      v8::Context::Scope context_scope(context);
      ASSERT_TRUE((*runtime)->Install(context).FromMaybe(false)) << i;
      v8::Local<v8::Script> script =
          v8::Script::Compile(
              context, v8::String::NewFromUtf8Literal(
                           isolate, "new AsyncLocalStorage().run(1, () => 2)"))
              .ToLocalChecked();
      EXPECT_EQ(script->Run(context).ToLocalChecked()->Int32Value(context),
                v8::Just(2));
      // The host disposes the isolate and never destroys the runtime.
      (void)runtime->release();
    }
    host::DisposeIsolate(isolate);
  }
  std::printf("[ registry ] 50 isolates, %d at a reused address\n", reused);
}

// Isolates disposed with their runtimes alive, in every state that owns V8
// handles (installed contexts with hooks, a second context, an unhandled
// rejection recorded, queued destroys, the execution stack's views): each
// runtime is freed when its isolate is disposed, and LeakSanitizer finds
// nothing left of it.
TEST(RuntimeRegistryTest, DisposingTheIsolateFreesItsRuntime) {
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  const int live_before = RuntimeTesting::LiveRuntimeCount();
  int rejections = 0;
  for (int i = 0; i < 20; i++) {
    v8::Isolate::CreateParams params;
    params.array_buffer_allocator = allocator.get();
    v8::Isolate* isolate = host::NewIsolate(params);
    isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
    {
      v8::Isolate::Scope isolate_scope(isolate);
      v8::HandleScope handle_scope(isolate);
      RuntimeOptions options;
      options.on_unhandled_rejection =
          [&](v8::Local<v8::Context>, v8::Local<v8::Promise>,
              v8::Local<v8::Value>) { rejections++; };
      absl::StatusOr<std::unique_ptr<Runtime>> runtime =
          Runtime::New(isolate, std::move(options));
      ASSERT_TRUE(runtime.ok()) << runtime.status();
      EXPECT_EQ(RuntimeTesting::LiveRuntimeCount(), live_before + 1);
      for (int c = 0; c < 2; c++) {
        v8::Local<v8::Context> context = v8::Context::New(isolate);
        v8::Context::Scope context_scope(context);
        ASSERT_TRUE((*runtime)->Install(context).FromMaybe(false));
        v8::Local<v8::Script> script =
            v8::Script::Compile(
                context,
                v8::String::NewFromUtf8Literal(
                    isolate,
                    "globalThis.hook = asyncHooks.createHook({"
                    "  init() {}, before() {}, after() {}, destroy() {}"
                    "}).enable();"
                    "globalThis.als = new AsyncLocalStorage();"
                    "als.run('kept', () => {"
                    "  Promise.reject(new Error('never handled'));"
                    "  for (let i = 0; i < 10; i++) new AsyncResource('R');"
                    "});"
                    "als.enterWith('left current');"))
                .ToLocalChecked();
        ASSERT_FALSE(script->Run(context).IsEmpty());
      }
      (void)runtime->release();
    }
    host::DisposeIsolate(isolate);
    EXPECT_EQ(RuntimeTesting::LiveRuntimeCount(), live_before) << i;
  }
  // Nothing ran the checkpoint that reports rejections.
  EXPECT_EQ(rejections, 0);
  std::printf("[ registry ] 20 isolates disposed with live runtimes: %d left\n",
              RuntimeTesting::LiveRuntimeCount() - live_before);
}

// A runtime destroyed by its host before the isolate is disposed is freed
// once, by the host (the watch is cancelled).
TEST(RuntimeRegistryTest, ARuntimeDestroyedFirstIsFreedOnce) {
  const int live_before = RuntimeTesting::LiveRuntimeCount();
  {
    TestIsolate env;
    EXPECT_EQ(RuntimeTesting::LiveRuntimeCount(), live_before + 1);
    env.DestroyRuntime();
    EXPECT_EQ(RuntimeTesting::LiveRuntimeCount(), live_before);
    env.CollectGarbage();
  }
  EXPECT_EQ(RuntimeTesting::LiveRuntimeCount(), live_before);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
