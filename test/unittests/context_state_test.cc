// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ContextState: where an installed context keeps its state (the named
// embedder-data slots) and the one lookup from a context.

#include "src/context_state.h"

#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "test/unittests/v8_fixture.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

using ContextStateTest = V8Test;

RuntimeImpl* Impl(Runtime* runtime) {
  return static_cast<RuntimeImpl*>(runtime);
}

TEST_F(ContextStateTest, FindsTheStateOfAnInstalledContextThroughItsSlots) {
  int base = Impl(runtime())->options().context_embedder_index;
  ContextState* state = ContextState::Find(context(), base);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->runtime, Impl(runtime()));
  EXPECT_EQ(ContextState::Find(Impl(runtime()), context()), state);
  EXPECT_EQ(ContextState::FindOrDie(Impl(runtime()), context(), "test"), state);
  // The layer slot holds the JavaScript layer's internals object.
  EXPECT_TRUE(context()->GetEmbedderData(base + kContextSlotLayer)->IsObject());
  EXPECT_GE(context()->GetNumberOfEmbedderDataFields(),
            static_cast<uint32_t>(base + kContextSlotCount));
}

TEST_F(ContextStateTest, FindsNothingInAContextThatWasNeverInstalled) {
  int base = Impl(runtime())->options().context_embedder_index;
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  EXPECT_EQ(ContextState::Find(other, base), nullptr);
  EXPECT_EQ(ContextState::Find(Impl(runtime()), other), nullptr);
  EXPECT_EQ(ContextState::Find(v8::Local<v8::Context>(), base), nullptr);
  EXPECT_EQ(ContextState::Find(nullptr, context()), nullptr);
}

TEST_F(ContextStateTest, FindsNothingOnceTheRuntimeIsDestroyed) {
  int base = Impl(runtime())->options().context_embedder_index;
  ASSERT_NE(ContextState::Find(context(), base), nullptr);
  env().DestroyRuntime();
  EXPECT_EQ(ContextState::Find(context(), base), nullptr);
  EXPECT_EQ(RuntimeRegistry::Find(isolate()), nullptr);
}

TEST_F(ContextStateTest, TheIsolatesRuntimeHasOneLookup) {
  EXPECT_EQ(RuntimeRegistry::Find(isolate()), Impl(runtime()));
  EXPECT_EQ(RuntimeRegistry::FindOrDie(isolate(), "test"), Impl(runtime()));
  EXPECT_EQ(Runtime::From(isolate()), runtime());
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
