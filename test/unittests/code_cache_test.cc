// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The process-wide code cache of the JavaScript layer (src/code_cache.h):
// made by one Install(), consumed by the Install()s of other isolates, on any
// thread, and replaced when V8 rejects it.

#include <memory>
#include <string>
#include <thread>

#include "asyncctx/testing.h"
#include "test/unittests/v8_fixture.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using Stats = RuntimeTesting::LayerCodeCacheStats;

// ALS across an await and queueMicrotask, in `env`'s installed context.
std::string RunLayer(TestIsolate& env) {
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.RunAndDrain(
      "globalThis.out = [];"
      "{ const als = new AsyncLocalStorage();"
      "als.run('a', async () => {"
      "  await null;"
      "  out.push(als.getStore());"
      "  queueMicrotask(() => out.push(als.getStore() + '!'));"
      "});"
      "out.push(String(als.getStore())); }");
  return env.RunString("out.join()");
}

// Install with the code cache (off by default).
InstallOptions WithCache() {
  InstallOptions options;
  options.code_cache = true;
  return options;
}

class CodeCacheTest : public ::testing::Test {
 protected:
  // No cache at the start: the first isolate of each test makes one.
  CodeCacheTest() { RuntimeTesting::SetLayerCodeCache(""); }
};

TEST_F(CodeCacheTest, SecondIsolateConsumesTheCacheOfTheFirst) {
  Stats before = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(before.bytes, 0u);
  TestIsolate first({}, WithCache());
  Stats made = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(made.produced, before.produced + 1);
  EXPECT_EQ(made.consumed, before.consumed);
  EXPECT_GT(made.bytes, 1000u);
  EXPECT_EQ(RunLayer(first), "undefined,a,a!");

  TestIsolate second({}, WithCache());
  Stats used = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(used.produced, made.produced);
  EXPECT_EQ(used.consumed, made.consumed + 1);
  EXPECT_EQ(used.rejected, made.rejected);
  EXPECT_EQ(used.bytes, made.bytes);
  EXPECT_EQ(RunLayer(second), "undefined,a,a!");
  EXPECT_EQ(RunLayer(first), "undefined,a,a!");
}

TEST_F(CodeCacheTest, IsolatesOnOtherThreadsConsumeTheCache) {
  { TestIsolate first({}, WithCache()); }
  Stats made = RuntimeTesting::LayerCodeCache();
  ASSERT_GT(made.bytes, 0u);
  std::string results[2];
  std::thread threads[2];
  for (int t = 0; t < 2; t++) {
    threads[t] = std::thread([&results, t] {
      TestIsolate env({}, WithCache());
      results[t] = RunLayer(env);
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(results[0], "undefined,a,a!");
  EXPECT_EQ(results[1], "undefined,a,a!");
  Stats used = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(used.consumed, made.consumed + 2);
  EXPECT_EQ(used.produced, made.produced);
  EXPECT_EQ(used.rejected, made.rejected);
}

TEST_F(CodeCacheTest, InstallWithoutTheCacheNeitherUsesNorMakesIt) {
  TestIsolate env({}, WithCache());
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  InstallOptions options;
  options.code_cache = false;
  for (bool with_cache : {true, false}) {
    if (!with_cache)
      RuntimeTesting::SetLayerCodeCache("");
    Stats before = RuntimeTesting::LayerCodeCache();
    v8::Local<v8::Context> context = v8::Context::New(env.isolate());
    ASSERT_TRUE(env.runtime()->Install(context, options).FromMaybe(false));
    EXPECT_EQ(env.RunStringIn(context, "typeof new AsyncLocalStorage().run"),
              "function");
    Stats after = RuntimeTesting::LayerCodeCache();
    EXPECT_EQ(after.consumed, before.consumed);
    EXPECT_EQ(after.produced, before.produced);
    EXPECT_EQ(after.rejected, before.rejected);
    EXPECT_EQ(after.bytes, before.bytes);
  }
}

TEST_F(CodeCacheTest, RejectedCacheFallsBackToACompileAndIsReplaced) {
  // Bytes that are not a code cache of this V8 (V8 checks their header:
  // magic number, version and flag hashes, source hash, length).
  RuntimeTesting::SetLayerCodeCache(std::string(4096, '\x5a'));
  Stats before = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(before.bytes, 4096u);
  TestIsolate env({}, WithCache());
  EXPECT_EQ(RunLayer(env), "undefined,a,a!");
  Stats after = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(after.rejected, before.rejected + 1);
  EXPECT_EQ(after.consumed, before.consumed);
  EXPECT_EQ(after.produced, before.produced + 1);
  EXPECT_GT(after.bytes, 0u);
  EXPECT_NE(after.bytes, 4096u);

  // The replacement is accepted.
  TestIsolate next({}, WithCache());
  EXPECT_EQ(RunLayer(next), "undefined,a,a!");
  Stats used = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(used.consumed, after.consumed + 1);
  EXPECT_EQ(used.rejected, after.rejected);
}

TEST_F(CodeCacheTest, ACacheOfAnotherScriptIsRejected) {
  // A real code cache, but of another source: V8's source check rejects it.
  std::string other;
  {
    TestIsolate env({}, WithCache());
    v8::Isolate::Scope isolate_scope(env.isolate());
    v8::HandleScope handle_scope(env.isolate());
    v8::Context::Scope context_scope(env.context());
    v8::ScriptCompiler::Source source(
        v8::String::NewFromUtf8Literal(env.isolate(), "(function() {})"));
    v8::Local<v8::UnboundScript> script =
        v8::ScriptCompiler::CompileUnboundScript(env.isolate(), &source)
            .ToLocalChecked();
    std::unique_ptr<v8::ScriptCompiler::CachedData> data(
        v8::ScriptCompiler::CreateCodeCache(script));
    ASSERT_NE(data, nullptr);
    other.assign(reinterpret_cast<const char*>(data->data), data->length);
  }
  RuntimeTesting::SetLayerCodeCache(other);
  Stats before = RuntimeTesting::LayerCodeCache();
  TestIsolate env({}, WithCache());
  EXPECT_EQ(RunLayer(env), "undefined,a,a!");
  Stats after = RuntimeTesting::LayerCodeCache();
  EXPECT_EQ(after.rejected, before.rejected + 1);
  EXPECT_EQ(after.produced, before.produced + 1);
  EXPECT_NE(after.bytes, other.size());
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
