// Copyright 2026 the asyncctx authors. All rights reserved.
//
// CallbackScope and MakeCallback: a host callback runs in its resource's
// frame with its ids, and the scope restores the stack and the frame on
// return, throw, termination and misuse.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-statistics.h"

namespace asyncctx {
namespace test {
namespace {

using CallbackScopeTest = V8Test;
using CallbackScopeDeathTest = V8Test;

TEST_F(CallbackScopeTest, IdsTriggerAndResourceInsideTheCallback) {
  AsyncResource resource(context(), "Timeout");
  EXPECT_EQ(resource.trigger_async_id(), 1);
  EXPECT_GT(resource.async_id(), 1);
  v8::Local<v8::Function> fn =
      Run("(function() { return [asyncHooks.executionAsyncId(), "
          "asyncHooks.triggerAsyncId(), asyncHooks.executionAsyncResource()]; "
          "})")
          .As<v8::Function>();
  v8::Local<v8::Value> result =
      MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocalChecked();
  v8::Local<v8::Array> array = result.As<v8::Array>();
  EXPECT_EQ(array->Get(context(), 0).ToLocalChecked().As<v8::Number>()->Value(),
            resource.async_id());
  EXPECT_EQ(array->Get(context(), 1).ToLocalChecked().As<v8::Number>()->Value(),
            1);
  EXPECT_TRUE(array->Get(context(), 2)
                  .ToLocalChecked()
                  ->StrictEquals(resource.resource()));
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
}

TEST_F(CallbackScopeTest, CallbackRunsInTheFrameCapturedAtCreation) {
  Run("globalThis.als = new AsyncLocalStorage();");
  v8::Local<v8::Function> create =
      Run("(function(make) { return als.run('req-1', make); })")
          .As<v8::Function>();
  std::unique_ptr<AsyncResource> resource;
  v8::Local<v8::Function> make =
      v8::Function::New(
          context(),
          [](const v8::FunctionCallbackInfo<v8::Value>& info) {
            auto* out = static_cast<std::unique_ptr<AsyncResource>*>(
                info.Data().As<v8::External>()->Value());
            *out = std::make_unique<AsyncResource>(
                info.GetIsolate()->GetCurrentContext(), "IO");
          },
          v8::External::New(isolate(), &resource))
          .ToLocalChecked();
  v8::Local<v8::Value> argv[] = {make};
  create->Call(context(), v8::Undefined(isolate()), 1, argv).ToLocalChecked();
  ASSERT_NE(resource, nullptr);
  // enterWith in a previous callback must not leak into this one.
  Run("als.enterWith('leaked')");
  v8::Local<v8::Function> read =
      Run("(function() { return als.getStore(); })").As<v8::Function>();
  v8::Local<v8::Value> store =
      MakeCallback(resource.get(), v8::Undefined(isolate()), read, 0, nullptr)
          .ToLocalChecked();
  EXPECT_EQ(*v8::String::Utf8Value(isolate(), store), std::string("req-1"));
  // The outermost scope ends at the root frame: the next macrotask starts
  // clean.
  EXPECT_EQ(RunString("als.getStore()"), "undefined");
  // A nested scope restores the exact previous frame instead.
  Run("als.enterWith('outer')");
  AsyncResource outer(context(), "Outer");
  {
    CallbackScope scope(&outer, CallbackScope::Checkpoint::kSkip);
    Run("als.enterWith('inside-outer')");
    MakeCallback(resource.get(), v8::Undefined(isolate()), read, 0, nullptr)
        .ToLocalChecked();
    EXPECT_EQ(RunString("als.getStore()"), "inside-outer");
  }
}

TEST_F(CallbackScopeTest, OutermostScopeRunsTheCheckpointInTheRightFrame) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];");
  std::unique_ptr<AsyncResource> resource;
  {
    v8::Local<v8::Function> fn = Run("(function() { return als.run('x', () => "
                                     "new AsyncResource('Host')); })")
                                     .As<v8::Function>();
    fn->Call(context(), v8::Undefined(isolate()), 0, nullptr).ToLocalChecked();
  }
  {
    // Created inside a C++ ContextKey scope instead.
    ContextKey key(context(), "k");
    ContextKey::Scope scope(key, context(), v8::Number::New(isolate(), 5));
    resource = std::make_unique<AsyncResource>(context(), "Host");
  }
  v8::Local<v8::Function> fn =
      Run("(function() { Promise.resolve().then(() => seen.push("
          "asyncHooks.executionAsyncId() > 0)); })")
          .As<v8::Function>();
  MakeCallback(resource.get(), v8::Undefined(isolate()), fn, 0, nullptr)
      .ToLocalChecked();
  EXPECT_EQ(RunString("seen.join()"), "true");
}

TEST_F(CallbackScopeTest, NestedScopesRestoreAfterAThrowThreeDeep) {
  AsyncResource a(context(), "A"), b(context(), "B"), c(context(), "C");
  {
    CallbackScope sa(&a);
    {
      CallbackScope sb(&b);
      {
        CallbackScope sc(&c);
        v8::TryCatch try_catch(isolate());
        EXPECT_TRUE(Run("1").IsEmpty() == false);
        v8::Local<v8::Value> r;
        EXPECT_FALSE(v8::Script::Compile(
                         context(), v8::String::NewFromUtf8Literal(
                                        isolate(), "(() => { throw 1; })()"))
                         .ToLocalChecked()
                         ->Run(context())
                         .ToLocal(&r));
        EXPECT_TRUE(try_catch.HasCaught());
        sc.MarkAsFailed();
        EXPECT_EQ(runtime()->ExecutionStackDepth(), 3u);
        EXPECT_EQ(runtime()->ExecutionAsyncId(), c.async_id());
      }
      EXPECT_EQ(runtime()->ExecutionAsyncId(), b.async_id());
    }
    EXPECT_EQ(runtime()->ExecutionAsyncId(), a.async_id());
  }
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
}

TEST_F(CallbackScopeTest, JavaScriptScopesInsideAHostScopeAfterThrow) {
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    Run("globalThis.hostId = " +
        std::to_string(static_cast<int64_t>(host.async_id())));
    EXPECT_EQ(RunString(R"JS(
      const r1 = new AsyncResource('A'), r2 = new AsyncResource('B');
      let depthSeen;
      try {
        r1.runInAsyncScope(() => r2.runInAsyncScope(() => {
          depthSeen = asyncHooks.executionAsyncId() === r2.asyncId();
          throw new Error('boom');
        }));
      } catch (e) {}
      depthSeen + ':' + (asyncHooks.executionAsyncId() === hostId)
    )JS"),
              "true:true");
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 1u);
    EXPECT_EQ(runtime()->ExecutionAsyncId(), host.async_id());
  }
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
}

TEST_F(CallbackScopeTest, TerminateExecutionInsideAScopeUnwindsTheStack) {
  AsyncResource host(context(), "Host");
  std::atomic<bool> started{false};
  v8::Isolate* iso = isolate();
  std::thread watchdog([&] {
    while (!started.load())
      std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    iso->TerminateExecution();
  });
  {
    CallbackScope scope(&host);
    v8::TryCatch try_catch(isolate());
    v8::Local<v8::Function> spin = Run(R"JS(
      (function(started) {
        const als = new AsyncLocalStorage();
        const r = new AsyncResource('Inner');
        started();
        als.run(1, () => r.runInAsyncScope(() => { for (;;) {} }));
      })
    )JS")
                                       .As<v8::Function>();
    v8::Local<v8::Value> argv[] = {
        v8::Function::New(
            context(),
            [](const v8::FunctionCallbackInfo<v8::Value>& info) {
              static_cast<std::atomic<bool>*>(
                  info.Data().As<v8::External>()->Value())
                  ->store(true);
            },
            v8::External::New(isolate(), &started))
            .ToLocalChecked()};
    EXPECT_TRUE(
        spin->Call(context(), v8::Undefined(isolate()), 1, argv).IsEmpty());
    EXPECT_TRUE(try_catch.HasTerminated());
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 2u);  // Host + Inner.
    scope.MarkAsFailed();
  }
  watchdog.join();
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
  // The isolate keeps working, at the root frame.
  EXPECT_EQ(RunString("new AsyncLocalStorage().getStore() === undefined && "
                      "asyncHooks.executionAsyncId()"),
            "1");
}

// A resource deleted inside its own callback (the clearTimeout(self)
// pattern): the scope does not touch it afterwards.
TEST_F(CallbackScopeTest, ResourceDeletedInsideItsOwnCallback) {
  auto resource = std::make_unique<AsyncResource>(context(), "Timeout");
  v8::Local<v8::Object> object = resource->resource();
  SetFunction(
      context(), "deleteSelf",
      [](const v8::FunctionCallbackInfo<v8::Value>& info) {
        FunctionData<std::unique_ptr<AsyncResource>>()->reset();
      },
      &resource);
  Run("globalThis.hook = asyncHooks.createHook({after() {}, destroy() {}});"
      "hook.enable();");
  v8::Local<v8::Function> fn = CompileFunction(context(), R"JS(
    (function() {
      deleteSelf();
      return asyncHooks.executionAsyncResource();
    })
  )JS");
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      MakeCallback(resource.get(), v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocal(&result));
  EXPECT_EQ(resource, nullptr);
  EXPECT_TRUE(result->StrictEquals(object));
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);

  // The same with a CallbackScope; afterwards executionAsyncResource() at
  // that depth is the resource of the next scope, not the deleted one.
  resource = std::make_unique<AsyncResource>(context(), "Timeout");
  {
    CallbackScope scope(resource.get());
    Run("deleteSelf()");
  }
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  AsyncResource other(context(), "Other");
  {
    CallbackScope scope(&other);
    EXPECT_TRUE(Run("asyncHooks.executionAsyncResource()")
                    ->StrictEquals(other.resource()));
  }
}

TEST_F(CallbackScopeTest, MakeCallbackWithAnEmptyFunctionThrows) {
  AsyncResource resource(context(), "X");
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(MakeCallback(&resource, v8::Local<v8::Value>(),
                           v8::Local<v8::Function>(), 0, nullptr)
                  .IsEmpty());
  ASSERT_TRUE(try_catch.HasCaught());
  EXPECT_NE(
      std::string(*v8::String::Utf8Value(isolate(), try_catch.Exception()))
          .find("the function is empty"),
      std::string::npos);
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
}

TEST_F(CallbackScopeDeathTest, MakeCallbackWithANullResourceIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        v8::Local<v8::Function> fn = CompileFunction(context(), "(() => 1)");
        (void)MakeCallback(nullptr, v8::Undefined(isolate()), fn, 0, nullptr);
      },
      "asyncctx: fatal: MakeCallback: the resource is null");
}

// A resource of a destroyed runtime is refused even when a
// new runtime was created for the isolate (possibly at the same address).
TEST(CallbackScopeGenerationDeathTest, ResourceOfAnEarlierRuntimeIsRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        TestIsolate env;
        v8::Isolate::Scope isolate_scope(env.isolate());
        v8::HandleScope handle_scope(env.isolate());
        auto resource = std::make_unique<AsyncResource>(env.context(), "Old");
        env.DestroyRuntime();
        std::unique_ptr<Runtime> next = Runtime::Create(env.isolate());
        v8::Local<v8::Context> context = v8::Context::New(env.isolate());
        (void)next->Install(context);
        CallbackScope scope(resource.get());
      },
      "asyncctx: fatal: CallbackScope: the resource's Runtime has been "
      "destroyed");
}

// With a host TryCatch around MakeCallback the exception
// reaches it: empty result, not reported as uncaught, no `after` hook, the
// stack balanced. Without one it is reported as uncaught.
TEST(MakeCallbackTest, ExceptionsReachTheHostTryCatch) {
  std::vector<std::string> uncaught;
  RuntimeOptions options;
  options.on_uncaught_exception = [&](v8::Local<v8::Context> context,
                                      v8::Local<v8::Value> exception,
                                      v8::Local<v8::Message>) {
    uncaught.push_back(
        *v8::String::Utf8Value(host_compat::IsolateOf(context), exception));
  };
  TestIsolate env(std::move(options));
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = env.context();
  v8::Context::Scope context_scope(context);
  env.Run(
      "globalThis.events = [];"
      "asyncHooks.createHook({before(id) { events.push('before'); },"
      "  after(id) { events.push('after'); }}).enable();");
  v8::Local<v8::Function> fn =
      CompileFunction(context, "(function() { throw new Error('boom'); })");
  AsyncResource resource(context, "X");
  {
    v8::TryCatch try_catch(isolate);
    EXPECT_TRUE(MakeCallback(&resource, v8::Undefined(isolate), fn, 0, nullptr)
                    .IsEmpty());
    ASSERT_TRUE(try_catch.HasCaught());
    EXPECT_EQ(
        std::string(*v8::String::Utf8Value(isolate, try_catch.Exception())),
        "Error: boom");
  }
  EXPECT_TRUE(uncaught.empty());
  EXPECT_EQ(env.RunString("events.splice(0).join()"), "before");
  EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);

  // No host TryCatch: reported as uncaught, still no `after`.
  EXPECT_TRUE(MakeCallback(&resource, v8::Undefined(isolate), fn, 0, nullptr)
                  .IsEmpty());
  ASSERT_EQ(uncaught.size(), 1u);
  EXPECT_EQ(uncaught[0], "Error: boom");
  EXPECT_EQ(env.RunString("events.splice(0).join()"), "before");

  // A CallbackScope notices an uncaught throw by itself (no MarkAsFailed).
  {
    CallbackScope scope(&resource);
    (void)fn->Call(context, v8::Undefined(isolate), 0, nullptr).IsEmpty();
  }
  EXPECT_EQ(uncaught.size(), 2u);
  EXPECT_EQ(env.RunString("events.splice(0).join()"), "before");
  EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);
}

// Counts the isolate's garbage collections while it lives.
class GcCounter {
 public:
  explicit GcCounter(v8::Isolate* isolate) : isolate_(isolate) {
    isolate_->AddGCPrologueCallback(OnGc, this);
  }
  ~GcCounter() { isolate_->RemoveGCPrologueCallback(OnGc, this); }
  int count() const { return count_; }

 private:
  static void OnGc(v8::Isolate*, v8::GCType, v8::GCCallbackFlags, void* data) {
    static_cast<GcCounter*>(data)->count_++;
  }
  v8::Isolate* isolate_;
  int count_ = 0;
};

void EmptyNativeCallback(const v8::FunctionCallbackInfo<v8::Value>&) {}

// What `calls` MakeCallbacks of an empty native function add to V8's heap,
// in bytes (or SIZE_MAX if a garbage collection ran meanwhile, which only
// allocation triggers here), with or without a host TryCatch around each.
size_t HeapBytesOfMakeCallbacks(v8::Local<v8::Context> context,
                                AsyncResource* resource,
                                int calls,
                                bool host_try_catch) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Function> fn =
      v8::Function::New(context, EmptyNativeCallback).ToLocalChecked();
  auto run = [&](int n) {
    for (int i = 0; i < n; i++) {
      v8::HandleScope handle_scope(isolate);
      std::optional<v8::TryCatch> try_catch;
      if (host_try_catch)
        try_catch.emplace(isolate);
      (void)MakeCallback(resource, v8::Undefined(isolate), fn, 0, nullptr)
          .IsEmpty();
    }
  };
  run(100);  // Whatever the first calls make once.
  GcCounter gcs(isolate);
  v8::HeapStatistics before;
  isolate->GetHeapStatistics(&before);
  run(calls);
  v8::HeapStatistics after;
  isolate->GetHeapStatistics(&after);
  if (gcs.count() > 0)
    return SIZE_MAX;
  return after.used_heap_size() > before.used_heap_size()
             ? after.used_heap_size() - before.used_heap_size()
             : 0;
}

// A host with no TryCatch of its own (the common case: a callback from the
// event loop) pays no V8 heap allocation per MakeCallback, as a host with
// one: the check for JavaScript below builds no stack trace object (on
// V8 >= 12 StackTrace::CurrentStackTrace makes one even for an empty stack,
// and 100,000 of them start a garbage collection).
TEST_F(CallbackScopeTest, MakeCallbackWithoutAHostTryCatchAllocatesNothing) {
  AsyncResource resource(context(), "Alloc");
  constexpr int kCalls = 100000;
  size_t with_try_catch =
      HeapBytesOfMakeCallbacks(context(), &resource, kCalls, true);
  size_t without_try_catch =
      HeapBytesOfMakeCallbacks(context(), &resource, kCalls, false);
  std::printf(
      "[ heap     ] %d MakeCallbacks: %zu bytes with a host TryCatch, %zu "
      "without\n",
      kCalls, with_try_catch, without_try_catch);
  ASSERT_NE(with_try_catch, SIZE_MAX);
  // Less than a byte per call: no object is made per call.
  EXPECT_LT(without_try_catch, static_cast<size_t>(kCalls));
  EXPECT_LT(with_try_catch, static_cast<size_t>(kCalls));
}

// What the message listeners of a host (besides the runtime's own) saw.
struct HostMessages {
  std::vector<std::string> texts;  // "message@line"

  static void OnMessage(v8::Local<v8::Message> message,
                        v8::Local<v8::Value> data) {
    v8::Isolate* isolate = v8::Isolate::GetCurrent();
    auto* self = static_cast<HostMessages*>(data.As<v8::External>()->Value());
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    self->texts.push_back(
        std::string(*v8::String::Utf8Value(isolate, message->Get())) + "@" +
        std::to_string(message->GetLineNumber(context).FromMaybe(-1)));
  }
};

// MakeCallback with no host TryCatch and no JavaScript below: an exception
// reaches every message listener once, with its own location, as V8
// reports an exception nothing catches.
TEST_F(CallbackScopeTest, MakeCallbackWithoutATryCatchReportsOnce) {
  HostMessages host;
  isolate()->AddMessageListener(HostMessages::OnMessage,
                                v8::External::New(isolate(), &host));
  v8::Local<v8::Function> fn = CompileFunction(context(),
                                               "(function() {\n"
                                               "  throw new Error('boom');\n"
                                               "})");
  AsyncResource resource(context(), "Report");
  for (int i = 0; i < 3; i++) {
    EXPECT_TRUE(
        MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
            .IsEmpty());
  }
  isolate()->RemoveMessageListeners(HostMessages::OnMessage);
  ASSERT_EQ(host.texts.size(), 3u);
  for (const std::string& text : host.texts)
    EXPECT_EQ(text, "Uncaught Error: boom@2");
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
}

// The host's native function `callBack(fn)` runs fn through MakeCallback
// with no TryCatch of its own, from JavaScript.
void CallBackFromJavaScript(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  AsyncResource* resource = FunctionData<AsyncResource>();
  v8::Local<v8::Value> result;
  if (MakeCallback(resource, v8::Undefined(isolate), info[0].As<v8::Function>(),
                   0, nullptr)
          .ToLocal(&result)) {
    info.GetReturnValue().Set(result);
  }
}

// Runs `source` as a script with no v8::TryCatch anywhere on the stack.
v8::MaybeLocal<v8::Value> RunWithoutATryCatch(v8::Local<v8::Context> context,
                                              const char* source) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Script> script =
      v8::Script::Compile(
          context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
          .ToLocalChecked();
  return script->Run(context);
}

// With JavaScript below (a native function the host gave to JavaScript),
// the exception propagates to the JavaScript caller, with or without a host
// TryCatch further out: a caller that catches it is the only one to see it;
// one that does not leaves it to V8, which reports it once.
TEST_F(CallbackScopeTest, MakeCallbackFromJavaScriptThrowsToTheCaller) {
  HostMessages host;
  isolate()->AddMessageListener(HostMessages::OnMessage,
                                v8::External::New(isolate(), &host));
  AsyncResource resource(context(), "FromJs");
  SetFunction(context(), "callBack", CallBackFromJavaScript, &resource);
  const char* catching =
      "globalThis.caught = 'none';"
      "try {"
      "  callBack(() => { throw new Error('to the caller'); });"
      "} catch (e) { caught = e.message; }"
      "caught";
  // A host TryCatch around the script.
  EXPECT_EQ(RunString(catching), "to the caller");
  // None at all.
  v8::Local<v8::Value> caught;
  ASSERT_TRUE(RunWithoutATryCatch(context(), catching).ToLocal(&caught));
  EXPECT_EQ(std::string(*v8::String::Utf8Value(isolate(), caught)),
            "to the caller");
  EXPECT_TRUE(host.texts.empty());
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);

  EXPECT_TRUE(RunWithoutATryCatch(
                  context(),
                  "callBack(() => {\n  throw new Error('nobody catches');\n});"
                  "globalThis.after = true;")
                  .IsEmpty());
  isolate()->RemoveMessageListeners(HostMessages::OnMessage);
  ASSERT_EQ(host.texts.size(), 1u);
  EXPECT_EQ(host.texts[0], "Uncaught Error: nobody catches@2");
  EXPECT_EQ(RunString("typeof globalThis.after"), "undefined");
  EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  // The callback's microtasks wait for the host's checkpoint.
  Run("globalThis.ran = [];");
  EXPECT_FALSE(RunWithoutATryCatch(
                   context(),
                   "try {"
                   "  callBack(() => {"
                   "    Promise.resolve().then(() => ran.push('reaction'));"
                   "    throw new Error('x');"
                   "  });"
                   "} catch (e) { ran.push('caught'); }")
                   .IsEmpty());
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.join()"), "caught,reaction");
}

// A resource created in context A and run while context B
// is entered runs in A, in A's captured frame.
TEST_F(CallbackScopeTest, ResourceOfAnotherContextRunsInItsOwnFrame) {
  v8::Local<v8::Context> a = context();
  v8::Local<v8::Context> b = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(b).FromMaybe(false));
  Run("globalThis.als = new AsyncLocalStorage();");
  std::unique_ptr<AsyncResource> resource;
  {
    ContextKey key(a, "k");
    auto wrapped = ContextKey::FromJavaScript(a, Run("als"));
    ASSERT_NE(wrapped, nullptr);
    Run("als.enterWith('from-a')");
    resource = std::make_unique<AsyncResource>(a, "X");
    Run("als.enterWith(undefined)");
  }
  v8::Context::Scope enter_b(b);
  RunStringIn(
      b, "globalThis.bAls = new AsyncLocalStorage(); bAls.enterWith('b'); ''");
  v8::Local<v8::Function> fn =
      CompileFunction(a, "(function() { return String(als.getStore()); })");
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      MakeCallback(resource.get(), v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocal(&result));
  EXPECT_EQ(std::string(*v8::String::Utf8Value(isolate(), result)), "from-a");
  EXPECT_EQ(RunStringIn(b, "String(bAls.getStore())"), "b");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
