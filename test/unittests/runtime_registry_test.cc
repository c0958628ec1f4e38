// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The registry never hands out a runtime whose isolate is gone: isolates
// disposed without destroying their runtimes, and new isolates that V8
// places at the same addresses, get fresh runtimes from Runtime::New, and
// Runtime::From never returns the dead one.

#include <cstdio>
#include <memory>
#include <set>
#include <vector>

#include "asyncctx/runtime.h"
#include "gtest/gtest.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

std::vector<Runtime*>& Abandoned() {
  static std::vector<Runtime*>* const abandoned = new std::vector<Runtime*>;
  return *abandoned;
}

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
      // The host disposes the isolate and never destroys the runtime. The
      // library cannot free it without V8 (its handles point into the dead
      // heap), so the test keeps it reachable: LeakSanitizer would otherwise
      // report what the host leaked.
      Abandoned().push_back(runtime->release());
    }
    host::DisposeIsolate(isolate);
  }
  std::printf("[ registry ] 50 isolates, %d at a reused address\n", reused);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
