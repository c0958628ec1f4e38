// Copyright 2026 the asyncctx authors. All rights reserved.
//
// DestroyQueue, and the destroy hooks it feeds.

#include "src/destroy_queue.h"

#include <string>
#include <vector>

#include "test/unittests/v8_fixture.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

TEST(DestroyQueueTest, ReportsAFullBatch) {
  DestroyQueue queue;
  for (size_t i = 1; i < DestroyQueue::kBatchSize; i++)
    EXPECT_FALSE(queue.Push(static_cast<double>(i)));
  EXPECT_TRUE(queue.Push(1e6));
  std::vector<double> batch = {42};
  queue.TakeInto(&batch);
  EXPECT_EQ(batch.size(), DestroyQueue::kBatchSize);
  EXPECT_EQ(batch.front(), 1);
  EXPECT_TRUE(queue.empty());
}

using DestroyHookTest = V8Test;

// With a destroy hook, the ids of wrapped microtasks are emitted in batches
// from a microtask during a long chain, as Node.js does, instead of piling up
// until the task after the checkpoint.
TEST_F(DestroyHookTest, WrappedMicrotaskIdsAreEmittedInBoundedBatches) {
  Run(R"JS(
    globalThis.destroyed = 0;
    globalThis.destroyedAtEnd = -1;
    asyncHooks.createHook({ destroy() { destroyed++; } }).enable();
    const total = 50000;
    let left = total;
    function step() {
      if (--left > 0) queueMicrotask(step);
      else destroyedAtEnd = destroyed;
    }
    queueMicrotask(step);
  )JS");
  runtime()->RunMicrotasks(context());
  double at_end = RunNumber("destroyedAtEnd");
  // Three full batches were emitted while the chain ran (before the fix,
  // every id waited for the task: 0 here).
  EXPECT_GE(at_end, 3.0 * DestroyQueue::kBatchSize);
  EXPECT_LT(at_end, 50000);
  env().PumpTasks();
  EXPECT_EQ(RunNumber("destroyed"), 50000);
}

// Resources collected by the GC inside a chain of promise jobs (which queue
// no destroy from JavaScript, unlike queueMicrotask) fill a batch there: the
// interrupt the GC requests queues the microtask that emits it, so the
// destroy hooks run while the chain still runs.
TEST_F(DestroyHookTest, BatchCollectedByTheGCIsEmittedDuringAChain) {
  Run("globalThis.kBatchSize = " + std::to_string(DestroyQueue::kBatchSize) +
      ";" + R"JS(
    globalThis.destroyed = 0;
    globalThis.destroyedAtEnd = -1;
    asyncHooks.createHook({ destroy() { destroyed++; } }).enable();
    let steps = 0;
    function step() {
      steps++;
      if (steps === 1) {
        for (let i = 0; i < kBatchSize + 1024; i++) new AsyncResource('X');
      } else if (steps === 2) {
        gc();
      }
      if (destroyed === 0 && steps < 100) Promise.resolve().then(step);
      else destroyedAtEnd = destroyed;
    }
    Promise.resolve().then(step);
  )JS");
  runtime()->RunMicrotasks(context());
  EXPECT_GE(RunNumber("destroyedAtEnd"), DestroyQueue::kBatchSize);
  env().PumpTasks();
}

// Walks over the contexts that call into JavaScript survive
// contexts being collected during the walk.
TEST_F(DestroyHookTest, ContextsCollectedWhileDestroyHooksRun) {
  std::vector<v8::Global<v8::Context>> contexts;
  for (int i = 0; i < 20; i++) {
    v8::HandleScope scope(isolate());
    v8::Local<v8::Context> c = v8::Context::New(isolate());
    ASSERT_TRUE(runtime()->Install(c).FromMaybe(false));
    RunStringIn(c,
                "globalThis.destroyed = 0;"
                "asyncHooks.createHook({destroy() {"
                "  destroyed++; if (globalThis.dropAll) dropAll();"
                "}}).enable(); ''");
    AsyncResource resource(c, "X");  // queues a destroy
    contexts.emplace_back(isolate(), c);
  }
  struct Contexts {
    v8::Isolate* isolate;
    std::vector<v8::Global<v8::Context>>* contexts;
  };
  Contexts data{isolate(), &contexts};
  {
    v8::Local<v8::Context> first = contexts[0].Get(isolate());
    v8::Context::Scope scope(first);
    SetFunction(
        first, "dropAll",
        [](const v8::FunctionCallbackInfo<v8::Value>& info) {
          auto* d = FunctionData<Contexts>();
          for (size_t i = 1; i < d->contexts->size(); i++)
            (*d->contexts)[i].Reset();
          d->isolate->RequestGarbageCollectionForTesting(
              v8::Isolate::kFullGarbageCollection);
        },
        &data);
  }
  runtime()->EmitPendingDestroys();
  EXPECT_EQ(RunStringIn(contexts[0].Get(isolate()), "String(destroyed)"), "1");
  env().CollectGarbage();
  runtime()->SetThenableRepair(false);
  runtime()->RunMicrotasks(context());
}

}  // namespace
// Destroy batches are emitted in the order the contexts were installed,
// whatever the order their destroys were queued in.
TEST_F(DestroyHookTest, BatchesAreEmittedInInstallOrder) {
  std::vector<std::string> log;
  std::vector<v8::Global<v8::Context>> contexts;
  for (int i = 0; i < 3; i++) {
    v8::HandleScope scope(isolate());
    v8::Local<v8::Context> context = v8::Context::New(isolate());
    ASSERT_TRUE(runtime()->Install(context).FromMaybe(false));
    SetFunction(
        context, "record",
        [](const v8::FunctionCallbackInfo<v8::Value>& info) {
          FunctionData<std::vector<std::string>>()->push_back(
              *v8::String::Utf8Value(info.GetIsolate(), info[0]));
        },
        &log);
    RunStringIn(context, "asyncHooks.createHook({ destroy() { record('c" +
                             std::to_string(i) + "'); } }).enable(); ''");
    contexts.emplace_back(isolate(), context);
  }
  for (int i : {2, 0, 1}) {
    v8::HandleScope scope(isolate());
    AsyncResource resource(contexts[i].Get(isolate()), "X");
  }
  runtime()->EmitPendingDestroys();
  std::string joined;
  for (const std::string& entry : log)
    joined += (joined.empty() ? "" : ",") + entry;
  EXPECT_EQ(joined, "c0,c1,c2");
}

}  // namespace test
}  // namespace asyncctx
