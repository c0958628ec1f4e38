// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The rules for hosts (docs/embedding.md, "Rules for hosts"): each test makes
// a mistake real embedders make (issue 15) or uses an embedder-grade API
// (issue 12), and checks that the result is correct behaviour or one clear
// `asyncctx: fatal:` message, never undefined behaviour.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

// What the native functions of a test reach (a global rather than a
// v8::External, whose API differs between V8 versions).
void* g_data = nullptr;

template <typename T>
T* Data() {
  return static_cast<T*>(g_data);
}

void SetFunction(v8::Local<v8::Context> context,
                 const char* name,
                 v8::FunctionCallback callback,
                 void* data = nullptr) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  if (data != nullptr)
    g_data = data;
  context->Global()
      ->Set(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked(),
            v8::Function::New(context, callback).ToLocalChecked())
      .Check();
}

v8::Local<v8::Function> CompileFunction(v8::Local<v8::Context> context,
                                        const char* source) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Context::Scope scope(context);
  return v8::Script::Compile(
             context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
      .ToLocalChecked()
      ->Run(context)
      .ToLocalChecked()
      .As<v8::Function>();
}

std::string RunIn(v8::Local<v8::Context> context, const char* source) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Context::Scope scope(context);
  v8::Local<v8::Value> result =
      v8::Script::Compile(
          context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
          .ToLocalChecked()
          ->Run(context)
          .ToLocalChecked();
  return *v8::String::Utf8Value(isolate, result);
}

using EmbedderRulesTest = V8Test;
using EmbedderRulesDeathTest = V8Test;

// Issue 15 item 1: a resource deleted inside its own callback (the
// clearTimeout(self) pattern) was used after free by the scope.
TEST_F(EmbedderRulesTest, ResourceDeletedInsideItsOwnCallback) {
  auto resource = std::make_unique<AsyncResource>(context(), "Timeout");
  v8::Local<v8::Object> object = resource->resource();
  SetFunction(
      context(), "deleteSelf",
      [](const v8::FunctionCallbackInfo<v8::Value>& info) {
        Data<std::unique_ptr<AsyncResource>>()->reset();
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
  // that depth is no longer the deleted resource.
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

// Issue 15 item 2: resetting the Runtime from a microtask was a
// use-after-free; it is now one clear fatal message.
TEST_F(EmbedderRulesDeathTest, RuntimeDestroyedFromAMicrotaskIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SetFunction(
            context(), "destroyRuntime",
            [](const v8::FunctionCallbackInfo<v8::Value>& info) {
              Data<TestIsolate>()->DestroyRuntime();
            },
            &env());
        Run("queueMicrotask(destroyRuntime)");
        runtime()->RunMicrotasks(context());
      },
      "asyncctx: fatal: Runtime::~Runtime: the Runtime was destroyed while "
      "it was running JavaScript");
}

// Issue 15 item 3: Install is all or nothing, and a global that cannot be
// defined is a failure.
TEST_F(EmbedderRulesTest, InstallIsAllOrNothing) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  RunIn(other,
        "Object.defineProperty(globalThis, 'queueMicrotask', "
        "{value: 'mine', writable: false, configurable: false}); ''");
  {
    v8::TryCatch try_catch(isolate());
    EXPECT_TRUE(runtime()->Install(other).IsNothing());
    ASSERT_TRUE(try_catch.HasCaught());
    EXPECT_NE(
        std::string(*v8::String::Utf8Value(isolate(), try_catch.Exception()))
            .find("cannot define the global 'queueMicrotask'"),
        std::string::npos);
  }
  EXPECT_FALSE(runtime()->IsInstalled(other));
  EXPECT_EQ(RunIn(other,
                  "typeof AsyncLocalStorage + typeof AsyncResource + "
                  "queueMicrotask"),
            "undefinedundefinedmine");
  // Installing under other names then works.
  InstallOptions options;
  options.queue_microtask = "";
  EXPECT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  EXPECT_EQ(RunIn(other,
                  "const als = new AsyncLocalStorage();"
                  "als.run(7, () => String(als.getStore()))"),
            "7");
}

// Issue 15 item 4: walks over the contexts that call into JavaScript survive
// contexts being collected during the walk.
TEST_F(EmbedderRulesTest, ContextsCollectedWhileDestroyHooksRun) {
  std::vector<v8::Global<v8::Context>> contexts;
  for (int i = 0; i < 20; i++) {
    v8::HandleScope scope(isolate());
    v8::Local<v8::Context> c = v8::Context::New(isolate());
    ASSERT_TRUE(runtime()->Install(c).FromMaybe(false));
    RunIn(c,
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
          auto* d = static_cast<Contexts*>(g_data);
          for (size_t i = 1; i < d->contexts->size(); i++)
            (*d->contexts)[i].Reset();
          d->isolate->RequestGarbageCollectionForTesting(
              v8::Isolate::kFullGarbageCollection);
        },
        &data);
  }
  runtime()->EmitPendingDestroys();
  EXPECT_EQ(RunIn(contexts[0].Get(isolate()), "String(destroyed)"), "1");
  env().CollectGarbage();
  runtime()->SetThenableRepair(false);
  runtime()->RunMicrotasks(context());
}

// Issue 15 item 5.
TEST_F(EmbedderRulesTest, MakeCallbackWithAnEmptyFunctionThrows) {
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

TEST_F(EmbedderRulesDeathTest, MakeCallbackWithANullResourceIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        v8::Local<v8::Function> fn = CompileFunction(context(), "(() => 1)");
        (void)MakeCallback(nullptr, v8::Undefined(isolate()), fn, 0, nullptr);
      },
      "asyncctx: fatal: MakeCallback: the resource is null");
}

// Issue 15 item 6: a resource of a destroyed runtime is refused even when a
// new runtime was created for the isolate (possibly at the same address).
TEST(EmbedderRulesGenerationDeathTest, ResourceOfAnEarlierRuntimeIsRefused) {
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

// Issue 15 item 7 and issue 12 item 1: a watchdog terminates a callback run
// by MakeCallback; its promise reactions and queueMicrotask callbacks must
// not run afterwards in its store.
TEST_F(EmbedderRulesTest, TerminatedMakeCallbackDropsItsQueuedWork) {
  SetFunction(context(), "terminateNow",
              [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                info.GetIsolate()->TerminateExecution();
              });
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.ran = [];");
  v8::Local<v8::Function> fn = CompileFunction(context(), R"JS(
    (function() {
      als.run('tenant', () => {
        Promise.resolve().then(() => ran.push('reaction:' + als.getStore()));
        queueMicrotask(() => ran.push('microtask:' + als.getStore()));
        terminateNow();
        for (;;) {}
      });
    })
  )JS");
  for (bool with_scope : {false, true}) {
    AsyncResource resource(context(), "Tenant");
    {
      v8::TryCatch try_catch(isolate());
      if (with_scope) {
        // The documented CallbackScope + TryCatch + MarkAsFailed pattern.
        CallbackScope scope(&resource);
        v8::TryCatch inner(isolate());
        if (fn->Call(context(), v8::Undefined(isolate()), 0, nullptr)
                .IsEmpty()) {
          scope.MarkAsFailed();
        }
      } else {
        EXPECT_TRUE(
            MakeCallback(&resource, v8::Undefined(isolate()), fn, 0, nullptr)
                .IsEmpty());
        EXPECT_TRUE(try_catch.HasTerminated());
      }
    }
    isolate()->CancelTerminateExecution();
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.join()"), "") << "with_scope=" << with_scope;
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
    // The isolate works normally afterwards.
    Run("Promise.resolve().then(() => ran.push('later'))");
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("ran.splice(0).join()"), "later");
  }
}

// Issue 12 item 1: with a host TryCatch around MakeCallback the exception
// reaches it: empty result, not reported as uncaught, no `after` hook, the
// stack balanced. Without one it is reported as uncaught.
TEST(EmbedderMakeCallbackTest, ExceptionsReachTheHostTryCatch) {
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

// Issue 15 item 8: a resource created in context A and run while context B
// is entered runs in A, in A's captured frame.
TEST_F(EmbedderRulesTest, ResourceOfAnotherContextRunsInItsOwnFrame) {
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
  RunIn(b,
        "globalThis.bAls = new AsyncLocalStorage(); bAls.enterWith('b'); ''");
  v8::Local<v8::Function> fn =
      CompileFunction(a, "(function() { return String(als.getStore()); })");
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      MakeCallback(resource.get(), v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocal(&result));
  EXPECT_EQ(std::string(*v8::String::Utf8Value(isolate(), result)), "from-a");
  EXPECT_EQ(RunIn(b, "String(bAls.getStore())"), "b");
}

// Issue 15 item 10: policies other than kExplicit are refused at Install.
TEST_F(EmbedderRulesTest, AutoMicrotasksPolicyIsRefusedAtInstall) {
  for (v8::MicrotasksPolicy policy :
       {v8::MicrotasksPolicy::kAuto, v8::MicrotasksPolicy::kScoped}) {
    isolate()->SetMicrotasksPolicy(policy);
    v8::Local<v8::Context> other = v8::Context::New(isolate());
    v8::TryCatch try_catch(isolate());
    EXPECT_TRUE(runtime()->Install(other).IsNothing());
    ASSERT_TRUE(try_catch.HasCaught());
    EXPECT_NE(
        std::string(*v8::String::Utf8Value(isolate(), try_catch.Exception()))
            .find("must be v8::MicrotasksPolicy::kExplicit"),
        std::string::npos);
    EXPECT_FALSE(runtime()->IsInstalled(other));
  }
  isolate()->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
}

// Issue 15 item 11.
TEST_F(EmbedderRulesDeathTest, ContextKeyScopesClosedOutOfOrderAreFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ContextKey key(context(), "k");
        auto outer = std::make_unique<ContextKey::Scope>(
            key, context(), v8::Number::New(isolate(), 1));
        ContextKey::Scope inner(key, context(), v8::Number::New(isolate(), 2));
        outer.reset();
      },
      "asyncctx: fatal: ContextKey::~Scope: scopes closed out of order");
}

TEST_F(EmbedderRulesDeathTest, ContextKeyOfAnotherIsolateIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ContextKey key(context(), "k");
        TestIsolate other;
        v8::Isolate::Scope isolate_scope(other.isolate());
        v8::HandleScope handle_scope(other.isolate());
        (void)key.Has(other.context());
      },
      "asyncctx: fatal: ContextKey::Has: the ContextKey was made for another "
      "isolate");
}

// Issue 12 item 2: a context with its own MicrotaskQueue gets its jobs run,
// next to a context that uses the isolate's queue.
TEST_F(EmbedderRulesTest, ContextWithItsOwnMicrotaskQueue) {
  std::unique_ptr<v8::MicrotaskQueue> queue =
      v8::MicrotaskQueue::New(isolate(), v8::MicrotasksPolicy::kExplicit);
  v8::Local<v8::Context> own =
      v8::Context::New(isolate(), nullptr, v8::MaybeLocal<v8::ObjectTemplate>(),
                       v8::MaybeLocal<v8::Value>(),
                       v8::DeserializeInternalFieldsCallback(), queue.get());
  ASSERT_TRUE(runtime()->Install(own).FromMaybe(false));
  RunIn(own,
        "globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];"
        "als.run('own', async () => { await null; seen.push(als.getStore()); "
        "  queueMicrotask(() => seen.push('q:' + als.getStore())); }); ''");
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];"
      "als.run('default', async () => { await null; "
      "seen.push(als.getStore()); });");
  runtime()->RunMicrotasks(own);
  EXPECT_EQ(RunIn(own, "seen.join()"), "own,q:own");
  EXPECT_EQ(RunString("seen.join()"), "");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("seen.join()"), "default");

  // A CallbackScope's checkpoint uses the context's queue too.
  AsyncResource resource(own, "X");
  {
    CallbackScope scope(&resource);
    RunIn(own, "Promise.resolve().then(() => seen.push('cb')); ''");
  }
  EXPECT_EQ(RunIn(own, "seen.join()"), "own,q:own,cb");
  {
    // Runtime first: it unregisters from the queue.
    v8::Local<v8::Context> unused = own;
    (void)unused;
  }
  env().DestroyRuntime();
}

// Issue 12 item 3: fatal errors go to the host's handler.
TEST(EmbedderFatalDeathTest, FatalErrorsGoToTheHostHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RuntimeOptions options;
        options.on_fatal_error = [](const std::string& message) {
          std::fprintf(stderr, "host handler: %s\n", message.c_str());
          std::fflush(stderr);
          std::_Exit(7);
        };
        TestIsolate env(std::move(options));
        v8::Isolate::Scope isolate_scope(env.isolate());
        v8::HandleScope handle_scope(env.isolate());
        v8::Local<v8::Context> context = v8::Context::New(env.isolate());
        AsyncResource resource(context, "X");  // not installed
      },
      ::testing::ExitedWithCode(7),
      "host handler: asyncctx: fatal: AsyncResource: asyncctx is not "
      "installed in this context");
}

// Issue 12 item 3: the default hook-error handler stops JavaScript but does
// not exit the process.
TEST_F(EmbedderRulesTest, DefaultHookErrorHandlerDoesNotExit) {
  Run("asyncHooks.createHook({init() { throw new Error('hook'); }}).enable();");
  ::testing::internal::CaptureStderr();
  {
    v8::TryCatch try_catch(isolate());
    AsyncResource resource(context(), "X");
  }
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("Error thrown in async hook 'init'"),
            std::string::npos);
  {
    // JavaScript is terminated (at the latest when it next runs).
    v8::TryCatch try_catch(isolate());
    (void)v8::Script::Compile(context(),
                              v8::String::NewFromUtf8Literal(isolate(), "1"))
        .ToLocalChecked()
        ->Run(context())
        .IsEmpty();
    EXPECT_TRUE(try_catch.HasTerminated() ||
                isolate()->IsExecutionTerminating());
  }
  isolate()->CancelTerminateExecution();
  EXPECT_EQ(RunString("'still here'"), "still here");
}

// Issue 12 item 4: a context whose embedder data slots another library uses
// is not taken for an installed one.
TEST_F(EmbedderRulesTest, ForeignEmbedderDataIsNotTakenForAnInstallation) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  static int foreign[4];
  for (int i = 38; i < 46; i += 1)
    other->SetAlignedPointerInEmbedderData(i, &foreign[0]);
  EXPECT_FALSE(runtime()->IsInstalled(other));
  EXPECT_TRUE(runtime()->Install(other).FromMaybe(false));
  EXPECT_TRUE(runtime()->IsInstalled(other));
}

// Issue 15 item 9: destroying a resource on another thread is one clear
// fatal message.
TEST_F(EmbedderRulesDeathTest, ResourceDestroyedOnAnotherThreadIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto resource = std::make_unique<AsyncResource>(context(), "Job");
        std::thread([&] { resource.reset(); }).join();
      },
      "asyncctx: fatal: AsyncResource::~AsyncResource: destroyed on a thread "
      "that has not entered its isolate");
}

// Issue 12 item 6: a frame captured in C++ is entered later without an async
// resource: no hooks, no new async id.
TEST_F(EmbedderRulesTest, ContextFrameCarriesContextWithoutHooks) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.events = [];"
      "asyncHooks.createHook({init(id, type) { events.push(type); },"
      "  before() { events.push('before'); }}).enable();");
  std::unique_ptr<ContextFrame> frame;
  Run("als.enterWith('captured')");
  frame = std::make_unique<ContextFrame>(ContextFrame::Current(context()));
  Run("als.enterWith('later')");
  double id_before = runtime()->ExecutionAsyncId();
  {
    ContextFrame::Scope scope(*frame);
    EXPECT_EQ(RunString("String(als.getStore())"), "captured");
    EXPECT_EQ(runtime()->ExecutionAsyncId(), id_before);
  }
  EXPECT_EQ(RunString("String(als.getStore())"), "later");
  EXPECT_EQ(RunString("events.join()"), "");
  // Move-only value: the moved-to frame enters the same values.
  ContextFrame moved = std::move(*frame);
  frame.reset();
  {
    ContextFrame::Scope scope(moved);
    EXPECT_EQ(RunString("String(als.getStore())"), "captured");
  }
}

// Issue 12 item 6: Node-style EmitAsyncInit / EmitAsyncDestroy.
TEST_F(EmbedderRulesTest, EmitAsyncInitAndDestroyWithPlainIds) {
  Run("globalThis.events = [];"
      "asyncHooks.createHook({"
      "  init(id, type, trigger) { events.push(type + ':' + id + ':' + "
      "trigger); },"
      "  destroy(id) { events.push('destroy:' + id); }}).enable();");
  AsyncIds ids = EmitAsyncInit(context(), "HostOp");
  EXPECT_GT(ids.async_id, 1);
  EXPECT_EQ(ids.trigger_async_id, 1);
  EmitAsyncDestroy(context(), ids);
  runtime()->EmitPendingDestroys();
  std::string id = std::to_string(static_cast<int>(ids.async_id));
  EXPECT_EQ(RunString("events.join()"), "HostOp:" + id + ":1,destroy:" + id);
}

// Issue 12 item 5: AsyncResource is movable; the moved-to object owns the
// ids, the frame and the single destroy.
TEST_F(EmbedderRulesTest, AsyncResourceIsMovable) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.destroyed = [];"
      "asyncHooks.createHook({destroy(id) { destroyed.push(id); }}).enable();"
      "als.enterWith('moved');");
  AsyncResource original(context(), "X");
  double id = original.async_id();
  Run("als.enterWith(undefined)");
  std::vector<AsyncResource> resources;
  resources.push_back(std::move(original));
  resources.reserve(8);  // moves again
  v8::Local<v8::Function> fn = CompileFunction(
      context(),
      "(function() { return asyncHooks.executionAsyncId() + ':' + "
      "als.getStore(); })");
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      MakeCallback(&resources[0], v8::Undefined(isolate()), fn, 0, nullptr)
          .ToLocal(&result));
  EXPECT_EQ(std::string(*v8::String::Utf8Value(isolate(), result)),
            std::to_string(static_cast<int>(id)) + ":moved");
  resources.clear();
  runtime()->EmitPendingDestroys();
  EXPECT_EQ(RunString("destroyed.join()"),
            std::to_string(static_cast<int>(id)));
}

// Issue 12 item 9: a promise created in one installed context and awaited in
// another: the awaiting code keeps its own context's stores.
TEST_F(EmbedderRulesTest, PromiseOfOneContextAwaitedInAnother) {
  v8::Local<v8::Context> a = context();
  v8::Local<v8::Context> b = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(b).FromMaybe(false));
  Run("globalThis.als = new AsyncLocalStorage();"
      "globalThis.make = () => als.run('a', () => Promise.resolve('value'));");
  b->Global()
      ->Set(b, v8::String::NewFromUtf8Literal(isolate(), "make"), Run("make"))
      .Check();
  RunIn(b,
        "globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];"
        "als.run('b', async () => {"
        "  const v = await make();"
        "  seen.push(v + ':' + als.getStore());"
        "}); ''");
  runtime()->RunMicrotasks(b);
  runtime()->RunMicrotasks(a);
  EXPECT_EQ(RunIn(b, "seen.join()"), "value:b");
}

// Issue 12 item 7: stores are recognized by brand, not by the global's name.
TEST_F(EmbedderRulesTest, FromJavaScriptRecognizesStoresByBrand) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  InstallOptions options;
  options.async_local_storage = "Storage";
  options.async_context = "AC";
  ASSERT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  v8::Context::Scope scope(other);
  auto run = [&](const char* source) {
    return v8::Script::Compile(
               other,
               v8::String::NewFromUtf8(isolate(), source).ToLocalChecked())
        .ToLocalChecked()
        ->Run(other)
        .ToLocalChecked();
  };
  run("globalThis.s = new Storage(); globalThis.v = new AC.Variable();"
      "globalThis.AsyncLocalStorage = class { getStore() { return 'fake'; } };"
      "globalThis.fake = new AsyncLocalStorage();"
      "globalThis.lookalike = Object.create(Storage.prototype);"
      "Storage.prototype.getStore = () => 'replaced';");
  auto store = ContextKey::FromJavaScript(other, run("s"));
  ASSERT_NE(store, nullptr);
  auto variable = ContextKey::FromJavaScript(other, run("v"));
  ASSERT_NE(variable, nullptr);
  EXPECT_EQ(ContextKey::FromJavaScript(other, run("fake")), nullptr);
  EXPECT_EQ(ContextKey::FromJavaScript(other, run("lookalike")), nullptr);
  EXPECT_EQ(ContextKey::FromJavaScript(other, run("new Proxy(s, {})")),
            nullptr);
  run("s.enterWith('real')");
  // The original getStore is used, not the replaced one.
  EXPECT_EQ(std::string(*v8::String::Utf8Value(
                isolate(), store->Get(other).ToLocalChecked())),
            "real");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
