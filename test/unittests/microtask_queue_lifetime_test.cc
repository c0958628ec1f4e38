// Copyright 2026 the asyncctx authors. All rights reserved.
//
// A context with its own v8::MicrotaskQueue: once the context is collected
// the host destroys the queue (V8 requires the queue to outlive its
// contexts, no more), and the runtime must never touch that queue again,
// neither at its next checkpoint nor when it is destroyed. Meant for ASan,
// where a use of the freed queue is a heap-use-after-free.

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "test/unittests/v8_fixture.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

// Installs into a context with its own queue, runs a callback that queues
// work there, and lets the context be collected. Returns true if it was.
bool InstallUseAndCollect(TestIsolate* env, v8::MicrotaskQueue* queue) {
  v8::Isolate* isolate = env->isolate();
  v8::Global<v8::Context> weak;
  {
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> sandbox =
        v8::Context::New(isolate, nullptr, {}, {},
                         v8::DeserializeInternalFieldsCallback(), queue);
    EXPECT_TRUE(env->runtime()->Install(sandbox).FromMaybe(false));
    EXPECT_EQ(env->RunStringIn(sandbox,
                               "const als = new AsyncLocalStorage();"
                               "als.run(1, () => queueMicrotask(() => {"
                               "  globalThis.seen = als.getStore(); }));"
                               "'queued'"),
              "queued");
    env->runtime()->RunMicrotasks(sandbox);
    EXPECT_EQ(env->RunStringIn(sandbox, "String(seen)"), "1");
    weak.Reset(isolate, sandbox);
    weak.SetWeak();
  }
  {
    // The host's next callback runs in its own context: from then on the
    // current frame (per isolate on V8 >= 12) is that context's root, and
    // nothing of the sandbox's stays reachable.
    v8::HandleScope handle_scope(isolate);
    env->runtime()->RunMicrotasks(env->context());
  }
  for (int i = 0; i < 5 && !weak.IsEmpty(); i++)
    env->CollectGarbage();
  return weak.IsEmpty();
}

TEST(MicrotaskQueueLifetimeTest, RuntimeOutlivesACollectedContextsQueue) {
  auto env = std::make_unique<TestIsolate>();
  v8::Isolate* isolate = env->isolate();
  {
    v8::Isolate::Scope isolate_scope(isolate);
    std::unique_ptr<v8::MicrotaskQueue> queue =
        v8::MicrotaskQueue::New(isolate, v8::MicrotasksPolicy::kExplicit);
    ASSERT_TRUE(InstallUseAndCollect(env.get(), queue.get()));
    queue.reset();
    // The runtime keeps working in its other context after the queue went.
    v8::HandleScope handle_scope(isolate);
    v8::Context::Scope context_scope(env->context());
    EXPECT_EQ(env->RunString("new AsyncLocalStorage().run(2, () => 'ok')"),
              "ok");
    env->runtime()->RunMicrotasks(env->context());
  }
  // ~Runtime, then the isolate: neither touches the freed queue.
  env.reset();
}

TEST(MicrotaskQueueLifetimeTest, ManyQueuesComeAndGoThenTheRuntimeIsDestroyed) {
  auto env = std::make_unique<TestIsolate>();
  v8::Isolate* isolate = env->isolate();
  {
    v8::Isolate::Scope isolate_scope(isolate);
    for (int i = 0; i < 20; i++) {
      std::unique_ptr<v8::MicrotaskQueue> queue =
          v8::MicrotaskQueue::New(isolate, v8::MicrotasksPolicy::kExplicit);
      ASSERT_TRUE(InstallUseAndCollect(env.get(), queue.get())) << i;
    }
  }
  env->DestroyRuntime();
  env.reset();
}

// V8 calls a queue's completed callbacks from a copy of its list: a host's
// callback registered before the runtime's that collects the queue's last
// installed context (the runtime then unregisters from the queue) is
// followed by a call of the runtime's callback all the same, which must
// find nothing of that queue (ASan: a heap-use-after-free when the
// callback's data was the freed record).
TEST(MicrotaskQueueLifetimeTest, QueueReleasedInsideAHostCompletedCallback) {
  auto env = std::make_unique<TestIsolate>();
  v8::Isolate* isolate = env->isolate();
  {
    v8::Isolate::Scope isolate_scope(isolate);
    std::unique_ptr<v8::MicrotaskQueue> queue =
        v8::MicrotaskQueue::New(isolate, v8::MicrotasksPolicy::kExplicit);
    struct Host {
      TestIsolate* env;
      v8::Global<v8::Context> weak;
      bool collected = false;
    } host{env.get(), {}, false};
    queue->AddMicrotasksCompletedCallback(
        [](v8::Isolate*, void* data) {
          auto* host = static_cast<Host*>(data);
          if (host->weak.IsEmpty() && host->collected)
            return;
          for (int i = 0; i < 5 && !host->weak.IsEmpty(); i++)
            host->env->CollectGarbage();
          host->collected = host->weak.IsEmpty();
        },
        &host);
    {
      v8::HandleScope handle_scope(isolate);
      v8::Local<v8::Context> sandbox = v8::Context::New(
          isolate, nullptr, {}, {}, v8::DeserializeInternalFieldsCallback(),
          queue.get());
      ASSERT_TRUE(env->runtime()->Install(sandbox).FromMaybe(false));
      EXPECT_EQ(env->RunStringIn(sandbox,
                                 "new AsyncLocalStorage().run(1, () =>"
                                 "  queueMicrotask(() => {})); 'queued'"),
                "queued");
      host.weak.Reset(isolate, sandbox);
      host.weak.SetWeak();
    }
    {
      v8::HandleScope handle_scope(isolate);
      env->runtime()->RunMicrotasks(env->context());
    }
    // The sandbox's queued job runs; then the host's callback collects the
    // sandbox, then V8 calls the runtime's.
    queue->PerformCheckpoint(isolate);
    EXPECT_TRUE(host.collected);
    {
      v8::HandleScope handle_scope(isolate);
      v8::Context::Scope context_scope(env->context());
      EXPECT_EQ(env->RunString("new AsyncLocalStorage().run(2, () => 'ok')"),
                "ok");
      env->runtime()->RunMicrotasks(env->context());
    }
    env->DestroyRuntime();
  }
  env.reset();
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
