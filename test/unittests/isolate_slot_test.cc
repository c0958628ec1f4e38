// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The isolate data slot is a RuntimeOptions field. A runtime on any slot is
// found by Runtime::From and by every C++ entry point; the other slots belong
// to the host and are never touched.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

RuntimeOptions OnSlot(uint32_t slot) {
  RuntimeOptions options;
  options.isolate_data_slot = slot;
  return options;
}

// Runs, in `env`, a callback through AsyncResource + MakeCallback inside
// the store captured at the resource's creation, then reads a native
// ContextKey: the whole C++ API, which finds the runtime from the isolate.
std::string RunEndToEnd(TestIsolate& env, const std::string& tag) {
  v8::Isolate* isolate = env.isolate();
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = env.context();
  v8::Context::Scope context_scope(context);
  env.Run(
      "globalThis.als = new AsyncLocalStorage(); globalThis.log = [];"
      "globalThis.hook = globalThis.hook || asyncHooks.createHook({"
      "  before(id) { log.push('before'); }}).enable();"
      "als.enterWith('" +
      tag + "');");
  auto resource = std::make_unique<AsyncResource>(context, "SlotJob");
  env.Run("als.enterWith(undefined)");
  v8::Local<v8::Function> fn =
      env.Run(
             "(function (x) { log.push(x + ':' + als.getStore() + ':' +"
             "  (asyncHooks.executionAsyncId() === this.id)); return 7; })")
          .As<v8::Function>();
  v8::Local<v8::Object> recv = v8::Object::New(isolate);
  recv->Set(context, v8::String::NewFromUtf8Literal(isolate, "id"),
            v8::Number::New(isolate, resource->async_id()))
      .Check();
  v8::Local<v8::Value> argv[] = {v8::String::NewFromUtf8Literal(isolate, "cb")};
  v8::Local<v8::Value> result;
  if (!MakeCallback(resource.get(), recv, fn, 1, argv).ToLocal(&result) ||
      !result->IsNumber()) {
    return "<MakeCallback failed>";
  }
  resource.reset();

  ContextKey key(context, "slot-key");
  std::string key_value;
  {
    ContextKey::Scope scope(key, context, v8::Number::New(isolate, 42));
    v8::Local<v8::Value> value;
    if (key.Get(context).ToLocal(&value))
      key_value = std::to_string(value.As<v8::Number>()->Value());
  }
  EXPECT_FALSE(key.Has(context));
  return env.RunString("log.join()") + "|" + key_value.substr(0, 2);
}

TEST(IsolateDataSlotTest, RuntimeOnANonDefaultSlotWorksEndToEnd) {
  TestIsolate env(OnSlot(1));
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  static int host_value = 0;
  isolate->SetData(kIsolateDataSlot, &host_value);
  EXPECT_EQ(isolate->GetData(1), env.runtime());
  EXPECT_EQ(Runtime::From(isolate), env.runtime());
  EXPECT_EQ(RunEndToEnd(env, "request-1"), "before,cb:request-1:true|42");
  // The host's value in the default slot was neither read nor written.
  EXPECT_EQ(isolate->GetData(kIsolateDataSlot), &host_value);
  env.DestroyRuntime();
  EXPECT_EQ(isolate->GetData(1), nullptr);
  EXPECT_EQ(isolate->GetData(kIsolateDataSlot), &host_value);
  EXPECT_EQ(Runtime::From(isolate), nullptr);
  isolate->SetData(kIsolateDataSlot, nullptr);
}

TEST(IsolateDataSlotTest, HostValueInTheDefaultSlotIsRefusedThenAvoided) {
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  v8::Isolate* isolate = host::NewIsolate(params);
  {
    v8::Isolate::Scope isolate_scope(isolate);
    static int host_value = 0;
    isolate->SetData(kIsolateDataSlot, &host_value);

    absl::StatusOr<std::unique_ptr<Runtime>> on_default = Runtime::New(isolate);
    ASSERT_FALSE(on_default.ok());
    EXPECT_EQ(on_default.status().code(), absl::StatusCode::kAlreadyExists);
    EXPECT_NE(on_default.status().message().find("slot 3 is already in use"),
              std::string::npos)
        << on_default.status().message();
    EXPECT_EQ(Runtime::From(isolate), nullptr);

    absl::StatusOr<std::unique_ptr<Runtime>> on_slot_2 =
        Runtime::New(isolate, OnSlot(2));
    ASSERT_TRUE(on_slot_2.ok()) << on_slot_2.status();
    EXPECT_EQ(Runtime::From(isolate), on_slot_2->get());
    // One runtime per isolate, whatever slot a second one asks for.
    absl::StatusOr<std::unique_ptr<Runtime>> second =
        Runtime::New(isolate, OnSlot(0));
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
    EXPECT_NE(second.status().message().find("already has a runtime"),
              std::string::npos);
    EXPECT_EQ(isolate->GetData(0), nullptr);

    on_slot_2->reset();
    EXPECT_EQ(isolate->GetData(2), nullptr);
    EXPECT_EQ(isolate->GetData(kIsolateDataSlot), &host_value);
    isolate->SetData(kIsolateDataSlot, nullptr);
  }
  host::DisposeIsolate(isolate);
}

TEST(IsolateDataSlotTest, SlotOutOfRangeIsRefused) {
  TestIsolate env;
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  v8::Isolate* isolate = host::NewIsolate(params);
  {
    v8::Isolate::Scope isolate_scope(isolate);
    for (uint32_t slot : {v8::Isolate::GetNumberOfDataSlots(), 1000u,
                          static_cast<uint32_t>(-1)}) {
      absl::StatusOr<std::unique_ptr<Runtime>> runtime =
          Runtime::New(isolate, OnSlot(slot));
      ASSERT_FALSE(runtime.ok());
      EXPECT_EQ(runtime.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(runtime.status().message().find("out of range"),
                std::string::npos)
          << runtime.status().message();
    }
    EXPECT_EQ(Runtime::Create(isolate, OnSlot(99)), nullptr);
    EXPECT_EQ(Runtime::From(isolate), nullptr);
    for (uint32_t slot = 0; slot < v8::Isolate::GetNumberOfDataSlots(); slot++)
      EXPECT_EQ(isolate->GetData(slot), nullptr);
  }
  host::DisposeIsolate(isolate);
  // The other isolate's runtime was not disturbed.
  EXPECT_EQ(Runtime::From(env.isolate()), env.runtime());
}

// Two isolates on one thread with different slots, used in turn (the
// lookup of one must never answer for the other), then on two threads.
TEST(IsolateDataSlotTest, TwoIsolatesWithDifferentSlots) {
  {
    TestIsolate a(OnSlot(0));
    TestIsolate b;  // the default slot
    static int host_value = 0;
    a.isolate()->SetData(kIsolateDataSlot, &host_value);
    EXPECT_EQ(Runtime::From(a.isolate()), a.runtime());
    EXPECT_EQ(Runtime::From(b.isolate()), b.runtime());
    EXPECT_EQ(b.isolate()->GetData(kIsolateDataSlot), b.runtime());
    EXPECT_EQ(b.isolate()->GetData(0), nullptr);
    for (int round = 0; round < 2; round++) {
      std::string tag = std::to_string(round);
      {
        v8::Isolate::Scope isolate_scope(a.isolate());
        EXPECT_EQ(RunEndToEnd(a, "a" + tag), "before,cb:a" + tag + ":true|42");
      }
      {
        v8::Isolate::Scope isolate_scope(b.isolate());
        EXPECT_EQ(RunEndToEnd(b, "b" + tag), "before,cb:b" + tag + ":true|42");
      }
    }
    EXPECT_EQ(a.isolate()->GetData(kIsolateDataSlot), &host_value);
    a.isolate()->SetData(kIsolateDataSlot, nullptr);
  }

  std::vector<std::string> results(2);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 2; t++) {
    threads.emplace_back([&results, t] {
      TestIsolate env(OnSlot(t + 1));
      v8::Isolate::Scope isolate_scope(env.isolate());
      std::string tag = "thread" + std::to_string(t);
      for (int i = 0; i < 50; i++) {
        if (Runtime::From(env.isolate()) != env.runtime())
          results[t] = "lookup answered for another isolate";
      }
      if (results[t].empty())
        results[t] = RunEndToEnd(env, tag);
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(results[0], "before,cb:thread0:true|42");
  EXPECT_EQ(results[1], "before,cb:thread1:true|42");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
