// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Out of memory near the heap limit, inside `run`: the host's handlers are
// reached with the stack intact, and a host that terminates and recovers
// finds the isolate at rest.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "test/unittests/reporting_fixture.h"
#include "test/unittests/request_workload.h"
#include "tools/v8_host/v8_host.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

// ---------------------------------------------------------------------------
// Out of memory near the heap limit, inside `run`.

// An isolate with a small old generation (`--max-old-space-size` for one
// isolate), a runtime and an installed context.
class SmallHeapIsolate {
 public:
  explicit SmallHeapIsolate(size_t max_old_generation_bytes)
      : allocator_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {
    v8::Isolate::CreateParams params;
    params.array_buffer_allocator = allocator_.get();
    params.constraints.set_max_old_generation_size_in_bytes(
        max_old_generation_bytes);
    isolate_ = host::NewIsolate(params);
    isolate_->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handle_scope(isolate_);
    RuntimeOptions options;
    options.platform = TestPlatform();
    runtime_ = Runtime::Create(isolate_, options);
    v8::Local<v8::Context> context = v8::Context::New(isolate_);
    EXPECT_TRUE(runtime_->Install(context).FromMaybe(false));
    context_.Reset(isolate_, context);
  }
  ~SmallHeapIsolate() {
    {
      v8::Isolate::Scope isolate_scope(isolate_);
      context_.Reset();
      runtime_.reset();
    }
    host::DisposeIsolate(isolate_);
  }
  v8::Isolate* isolate() { return isolate_; }
  Runtime* runtime() { return runtime_.get(); }
  v8::Local<v8::Context> context() { return context_.Get(isolate_); }

 private:
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_;
  std::unique_ptr<Runtime> runtime_;
  v8::Global<v8::Context> context_;
};

// Fills the heap inside `als.run`, inside runInAsyncScope, inside a host
// callback, with hooks enabled.
const char kFillTheHeap[] = R"JS(
  const als = new AsyncLocalStorage();
  asyncHooks.createHook({init() {}, before() {}, after() {}, destroy() {}})
      .enable();
  globalThis.hog = [];
  als.run({request: 1}, () => {
    new AsyncResource('Hog').runInAsyncScope(() => {
      for (;;) hog.push(new Array(100000).fill(als.getStore()));
    });
  });
)JS";

Runtime* g_oom_runtime = nullptr;

[[noreturn]] void OnOutOfMemory(const char* location, bool is_heap_oom) {
  // Only async-signal-safe work here: the heap is gone.
  std::fprintf(
      stderr,
      "host OOM handler reached: heap=%d, execution stack depth %zu, "
      "execution async id %s1\n",
      is_heap_oom ? 1 : 0,
      g_oom_runtime ? g_oom_runtime->ExecutionStackDepth() : 0,
      g_oom_runtime && g_oom_runtime->ExecutionAsyncId() > 1 ? ">" : "=");
  std::fflush(stderr);
  std::_Exit(42);
}

void RunOutOfMemory() {
  SmallHeapIsolate env(16 * 1024 * 1024);
  v8::Isolate* isolate = env.isolate();
  host_compat::SetOOMErrorHandler(isolate, OnOutOfMemory);
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  g_oom_runtime = env.runtime();
  v8::Context::Scope context_scope(env.context());
  AsyncResource host(env.context(), "Host");
  CallbackScope scope(&host);
  (void)v8::Script::Compile(
      env.context(), v8::String::NewFromUtf8Literal(isolate, kFillTheHeap))
      .ToLocalChecked()
      ->Run(env.context())
      .IsEmpty();
  std::fprintf(stderr, "the script returned\n");
  std::fflush(nullptr);
  std::_Exit(1);
}

TEST(OutOfMemoryDeathTest, OutOfMemoryInsideRunReachesTheHostsHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Depth 2: the host's scope and runInAsyncScope; nothing unwound or
  // corrupted before the handler runs.
  EXPECT_EXIT(RunOutOfMemory(), ::testing::ExitedWithCode(42),
              "host OOM handler reached: heap=1, execution stack depth 2, "
              "execution async id >1");
}

struct NearLimit {
  v8::Isolate* isolate;
  Runtime* runtime;
  int calls = 0;
  size_t depth_seen = 0;
};

size_t OnNearHeapLimit(void* data, size_t current_limit, size_t) {
  auto* near = static_cast<NearLimit*>(data);
  near->calls++;
  near->depth_seen = near->runtime->ExecutionStackDepth();
  // A host's usual answer: stop the script, and give it room to unwind.
  near->isolate->TerminateExecution();
  return current_limit * 2;
}

TEST(OutOfMemoryTest, NearHeapLimitTerminationInsideRunRecovers) {
  SmallHeapIsolate env(16 * 1024 * 1024);
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  NearLimit near{isolate, env.runtime()};
  isolate->AddNearHeapLimitCallback(OnNearHeapLimit, &near);
  v8::Local<v8::Context> context = env.context();
  v8::Context::Scope context_scope(context);
  {
    AsyncResource host(context, "Host");
    v8::TryCatch outer(isolate);
    {
      CallbackScope scope(&host);
      v8::TryCatch try_catch(isolate);
      EXPECT_TRUE(v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                                   isolate, kFillTheHeap))
                      .ToLocalChecked()
                      ->Run(context)
                      .IsEmpty());
      EXPECT_TRUE(try_catch.HasTerminated());
      scope.MarkAsFailed();
    }
  }
  isolate->RemoveNearHeapLimitCallback(OnNearHeapLimit, 0);
  isolate->CancelTerminateExecution();
  EXPECT_GE(near.calls, 1);
  EXPECT_EQ(near.depth_seen, 2u);  // the host's scope and runInAsyncScope
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                       isolate, "globalThis.hog = null"))
          .ToLocalChecked()
          ->Run(context)
          .ToLocal(&result));
  isolate->RequestGarbageCollectionForTesting(
      v8::Isolate::kFullGarbageCollection);
  env.runtime()->RunMicrotasks(context);
  EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(env.runtime()->ExecutionAsyncId(), 1);
  // A fresh script at the root frame, and a request after it.
  RequestLoop loop(isolate, env.runtime(), context, 5, {});
  ASSERT_TRUE(loop.Install());
  ASSERT_TRUE(
      v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                       isolate,
                                       "[asyncHooks.executionAsyncId(), "
                                       "String(__requestId.get())].join()"))
          .ToLocalChecked()
          ->Run(context)
          .ToLocal(&result));
  EXPECT_EQ(ToString(isolate, result), "1,undefined");
  EXPECT_EQ(loop.RunRound(1, 50, 1), RequestLoop::Outcome::kIdle);
  EXPECT_EQ(loop.CheckRound(), "");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
