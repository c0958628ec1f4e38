// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The runtime's execution-stack block is reported to V8 as external memory
// once per runtime, not once per installed context (V8 accounts every
// ArrayBuffer's backing store, so the contexts' views of the shared block
// must not each count it).

#include <cstdint>
#include <cstdio>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "src/execution_stack.h"
#include "test/unittests/v8_fixture.h"
#include "v8-isolate.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-statistics.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

int64_t ExternalMemory(v8::Isolate* isolate) {
  v8::HeapStatistics statistics;
  isolate->GetHeapStatistics(&statistics);
  return static_cast<int64_t>(statistics.external_memory());
}

int g_full_gcs = 0;
void CountFullGc(v8::Isolate*, v8::GCType, v8::GCCallbackFlags) {
  g_full_gcs++;
}

// Full (mark-compact) GCs while `count` contexts are created and kept, with
// asyncctx installed in each or not.
int FullGcsWhileCreatingContexts(int count, bool install) {
  TestIsolate env;
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  env.CollectGarbage();
  std::vector<v8::Global<v8::Context>> contexts;
  g_full_gcs = 0;
  isolate->AddGCPrologueCallback(CountFullGc, v8::kGCTypeMarkSweepCompact);
  for (int i = 0; i < count; i++) {
    v8::HandleScope inner(isolate);
    v8::Local<v8::Context> context = v8::Context::New(isolate);
    if (install) {
      EXPECT_TRUE(env.runtime()->Install(context).FromMaybe(false));
    }
    contexts.emplace_back(isolate, context);
  }
  isolate->RemoveGCPrologueCallback(CountFullGc);
  return g_full_gcs;
}

TEST(MemoryAccountingTest, ExecutionStackBlockIsAccountedOncePerRuntime) {
  TestIsolate env;
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  constexpr int kContexts = 200;
  int64_t before = ExternalMemory(isolate);
  std::vector<v8::Global<v8::Context>> contexts;
  for (int i = 0; i < kContexts; i++) {
    v8::HandleScope inner(isolate);
    v8::Local<v8::Context> context = v8::Context::New(isolate);
    ASSERT_TRUE(env.runtime()->Install(context).FromMaybe(false));
    contexts.emplace_back(isolate, context);
  }
  int64_t grown = ExternalMemory(isolate) - before;
  std::printf(
      "[ memory   ] %d installed contexts: external memory +%.1f KB (block "
      "%.1f KB)\n",
      kContexts, grown / 1024.0, ExecutionStack::kMemoryBytes / 1024.0);
  // Each context's own hook fields are 128 bytes; the shared block (1 MB)
  // was counted once more for every context.
  EXPECT_LT(grown, static_cast<int64_t>(ExecutionStack::kMemoryBytes) / 4);
  // The installed contexts work (they share the one stack).
  EXPECT_EQ(env.RunString("new AsyncLocalStorage().run(7, () => "
                          "String(asyncHooks.executionAsyncId()))"),
            "1");

  // Dropped, the contexts and their accounting go away.
  contexts.clear();
  for (int i = 0; i < 3; i++)
    env.CollectGarbage();
  EXPECT_LT(ExternalMemory(isolate) - before,
            static_cast<int64_t>(ExecutionStack::kMemoryBytes) / 4);

  // A context installed afterwards shares the one stack and id counter.
  v8::Local<v8::Context> late = v8::Context::New(isolate);
  ASSERT_TRUE(env.runtime()->Install(late).FromMaybe(false));
  double late_id;
  {
    v8::Context::Scope scope(late);
    late_id = v8::Script::Compile(
                  late, v8::String::NewFromUtf8Literal(
                            isolate,
                            "new AsyncResource('X').runInAsyncScope(() => "
                            "asyncHooks.executionAsyncId())"))
                  .ToLocalChecked()
                  ->Run(late)
                  .ToLocalChecked()
                  ->NumberValue(late)
                  .FromJust();
  }
  EXPECT_GT(late_id, 1);
  EXPECT_EQ(env.RunNumber("new AsyncResource('Y').asyncId()"), late_id + 1);
  EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);
}

TEST(MemoryAccountingTest, InstalledContextsCauseNoExtraFullGcs) {
  constexpr int kContexts = 2000;
  int without = FullGcsWhileCreatingContexts(kContexts, /*install=*/false);
  int with = FullGcsWhileCreatingContexts(kContexts, /*install=*/true);
  std::printf(
      "[ memory   ] %d contexts: %d full GCs with asyncctx installed, %d "
      "without\n",
      kContexts, with, without);
  // Installing adds the JavaScript layer to each context (heap growth that
  // may cost a full GC or two), never one full GC per few contexts as the
  // per-context accounting of the shared block did.
  EXPECT_LE(with, 2 * without + 3);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
