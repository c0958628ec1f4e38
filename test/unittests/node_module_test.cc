// Copyright 2026 the asyncctx authors. All rights reserved.
//
// node:async_hooks as a module (include/asyncctx/module.h), imported by real
// ES modules through a resolver like the one docs/embedding.md shows.

#include <string>

#include "asyncctx/module.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-primitive.h"
#include "v8-promise.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using NodeModuleTest = V8Test;

v8::MaybeLocal<v8::Module> Resolve(v8::Local<v8::Context> context,
                                   v8::Local<v8::String> specifier,
                                   v8::Local<v8::FixedArray>,
                                   v8::Local<v8::Module>) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::String::Utf8Value name(isolate, specifier);
  if (IsAsyncHooksSpecifier(*name))
    return GetAsyncHooksModule(context);
  isolate->ThrowException(v8::Exception::Error(
      v8::String::NewFromUtf8(isolate, "no such module").ToLocalChecked()));
  return {};
}

v8::Local<v8::Module> Compile(v8::Isolate* isolate, const std::string& code) {
  v8::ScriptOrigin origin = host_compat::MakeModuleOrigin(
      isolate, v8::String::NewFromUtf8Literal(isolate, "test.mjs"));
  v8::ScriptCompiler::Source source(
      v8::String::NewFromUtf8(isolate, code.c_str()).ToLocalChecked(), origin);
  return v8::ScriptCompiler::CompileModule(isolate, &source).ToLocalChecked();
}

// Links and evaluates `code` as a module, drains microtasks, and returns the
// module (its evaluation promise settled).
v8::Local<v8::Module> RunModule(TestIsolate& env, const std::string& code) {
  v8::Isolate* isolate = env.isolate();
  v8::Local<v8::Context> context = env.context();
  v8::Local<v8::Module> module = Compile(isolate, code);
  v8::TryCatch try_catch(isolate);
  EXPECT_TRUE(module->InstantiateModule(context, Resolve).FromMaybe(false));
  v8::Local<v8::Value> result;
  EXPECT_TRUE(module->Evaluate(context).ToLocal(&result));
  env.runtime()->RunMicrotasks(context);
  EXPECT_FALSE(try_catch.HasCaught());
  EXPECT_EQ(module->GetStatus(), v8::Module::kEvaluated);
  return module;
}

TEST_F(NodeModuleTest, RecognizesNodesSpecifiers) {
  EXPECT_TRUE(IsAsyncHooksSpecifier("node:async_hooks"));
  EXPECT_TRUE(IsAsyncHooksSpecifier("async_hooks"));
  EXPECT_FALSE(IsAsyncHooksSpecifier("node:async_hooks/"));
  EXPECT_FALSE(IsAsyncHooksSpecifier("async_hooks.js"));
  EXPECT_FALSE(IsAsyncHooksSpecifier(""));
}

TEST_F(NodeModuleTest, NamedAndDefaultExportsAreTheInstalledObjects) {
  RunModule(env(), R"(
    import asyncHooksDefault, * as ns from 'node:async_hooks';
    import { AsyncLocalStorage, AsyncResource, createHook, executionAsyncId,
             triggerAsyncId, executionAsyncResource } from 'async_hooks';
    globalThis.result = [
      AsyncLocalStorage === globalThis.AsyncLocalStorage,
      AsyncResource === globalThis.AsyncResource,
      createHook === asyncHooks.createHook,
      executionAsyncId === asyncHooks.executionAsyncId,
      triggerAsyncId === asyncHooks.triggerAsyncId,
      executionAsyncResource === asyncHooks.executionAsyncResource,
      asyncHooksDefault === asyncHooks,
      ns.default === asyncHooks,
      Object.keys(ns).sort().join(),
    ].join();
  )");
  EXPECT_EQ(RunString("result"),
            "true,true,true,true,true,true,true,true,"
            "AsyncLocalStorage,AsyncResource,asyncWrapProviders,createHook,"
            "default,executionAsyncId,executionAsyncResource,triggerAsyncId");
}

TEST_F(NodeModuleTest, BothSpecifiersNameOneModule) {
  v8::Local<v8::Module> a = GetAsyncHooksModule(context()).ToLocalChecked();
  v8::Local<v8::Module> b = GetAsyncHooksModule(context()).ToLocalChecked();
  EXPECT_TRUE(a == b);
  RunModule(env(), R"(
    import * as a from 'node:async_hooks';
    import * as b from 'async_hooks';
    globalThis.sameNamespace = a === b;
  )");
  EXPECT_EQ(RunString("sameNamespace"), "true");
}

TEST_F(NodeModuleTest, StoreFlowsThroughAwaitInAModule) {
  RunModule(env(), R"(
    import { AsyncLocalStorage } from 'node:async_hooks';
    const als = new AsyncLocalStorage();
    globalThis.seen = [];
    await als.run('request-1', async () => {
      await null;
      seen.push(als.getStore());
      await new Promise((resolve) => setTimeoutLike(resolve));
      seen.push(als.getStore());
    });
    seen.push(String(als.getStore()));
    function setTimeoutLike(fn) { Promise.resolve().then(fn); }
  )");
  EXPECT_EQ(RunString("seen.join()"), "request-1,request-1,undefined");
}

TEST_F(NodeModuleTest, CollectedModuleIsMadeAgain) {
  // The cache is weak: once nothing holds the module, the GC may take it,
  // and the next call makes a new one that links and evaluates as well.
  {
    v8::HandleScope scope(isolate());
    ASSERT_FALSE(GetAsyncHooksModule(context()).IsEmpty());
  }
  env().CollectGarbage();
  v8::Local<v8::Module> module =
      GetAsyncHooksModule(context()).ToLocalChecked();
  EXPECT_TRUE(module->InstantiateModule(context(), Resolve).FromMaybe(false));
  EXPECT_FALSE(module->Evaluate(context()).IsEmpty());
  v8::Local<v8::Object> name_space =
      module->GetModuleNamespace().As<v8::Object>();
  EXPECT_TRUE(name_space
                  ->Get(context(), v8::String::NewFromUtf8Literal(
                                       isolate(), "AsyncResource"))
                  .ToLocalChecked()
                  ->StrictEquals(Run("AsyncResource")));
}

TEST_F(NodeModuleTest, RequireObjectIsTheNamespace) {
  v8::Local<v8::Object> exports =
      GetAsyncHooksExports(context()).ToLocalChecked();
  EXPECT_TRUE(exports->StrictEquals(Run("asyncHooks")));
}

TEST_F(NodeModuleTest, WorksWithoutTheAsyncHooksGlobal) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  InstallOptions options;
  options.async_hooks = "";
  options.async_local_storage = "";
  ASSERT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  v8::Context::Scope scope(other);
  v8::Local<v8::Object> exports = GetAsyncHooksExports(other).ToLocalChecked();
  v8::Local<v8::Value> als =
      exports
          ->Get(other,
                v8::String::NewFromUtf8Literal(isolate(), "AsyncLocalStorage"))
          .ToLocalChecked();
  EXPECT_TRUE(als->IsFunction());
  // A different context has its own classes.
  EXPECT_FALSE(als->StrictEquals(Run("AsyncLocalStorage")));
  v8::Local<v8::Module> module = GetAsyncHooksModule(other).ToLocalChecked();
  EXPECT_FALSE(module == GetAsyncHooksModule(context()).ToLocalChecked());
}

TEST_F(NodeModuleTest, UninstalledContextThrows) {
  v8::Local<v8::Context> bare = v8::Context::New(isolate());
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(GetAsyncHooksModule(bare).IsEmpty());
  ASSERT_TRUE(try_catch.HasCaught());
  v8::String::Utf8Value message(isolate(), try_catch.Exception());
  EXPECT_NE(std::string(*message).find("Runtime::Install"), std::string::npos);
  try_catch.Reset();
  EXPECT_TRUE(GetAsyncHooksExports(bare).IsEmpty());
  EXPECT_TRUE(try_catch.HasCaught());
}

TEST_F(NodeModuleTest, ImportFromUninstalledContextFails) {
  // A module instantiated in a context without asyncctx cannot link it.
  v8::Local<v8::Context> bare = v8::Context::New(isolate());
  v8::Context::Scope scope(bare);
  v8::Local<v8::Module> module =
      Compile(isolate(), "import { AsyncLocalStorage } from 'async_hooks';");
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(module->InstantiateModule(bare, Resolve).IsNothing());
  EXPECT_TRUE(try_catch.HasCaught());
}

// EvaluateModule: the module's top level, its top-level await and the jobs
// it queues run at the root frame; the caller's frame comes back after.
constexpr char kContextProbe[] = R"(
  globalThis.seen = [String(als.getStore()), String(variable.get())];
  Promise.resolve().then(() => seen.push('job ' + als.getStore()));
  await null;
  seen.push('after await ' + als.getStore());
)";

class EvaluateModuleTest : public V8Test {
 protected:
  void EnterCallerFrame() {
    RunString(
        "globalThis.als = new AsyncLocalStorage();"
        "globalThis.variable = new AsyncContext.Variable();"
        "als.enterWith('caller'); 'ok'");
  }
};

TEST_F(EvaluateModuleTest, RunsTheModuleAtTheRootFrame) {
  EnterCallerFrame();
  v8::Local<v8::Module> module = Compile(isolate(), kContextProbe);
  ASSERT_TRUE(module->InstantiateModule(context(), Resolve).FromMaybe(false));
  v8::TryCatch try_catch(isolate());
  v8::Local<v8::Value> result;
  ASSERT_TRUE(EvaluateModule(context(), module).ToLocal(&result));
  // The caller's frame is back at once.
  EXPECT_EQ(RunString("String(als.getStore())"), "caller");
  EXPECT_EQ(RunString("seen.join()"), "undefined,undefined");
  runtime()->RunMicrotasks(context());
  EXPECT_FALSE(try_catch.HasCaught());
  EXPECT_EQ(module->GetStatus(), v8::Module::kEvaluated);
  EXPECT_EQ(RunString("seen.join()"),
            "undefined,undefined,job undefined,after await undefined");
}

TEST_F(EvaluateModuleTest, ModuleEvaluateAloneRunsInTheCallersFrame) {
  // Why EvaluateModule exists: V8 evaluates in whatever frame is current.
  EnterCallerFrame();
  v8::Local<v8::Module> module = Compile(isolate(), kContextProbe);
  ASSERT_TRUE(module->InstantiateModule(context(), Resolve).FromMaybe(false));
  ASSERT_FALSE(module->Evaluate(context()).IsEmpty());
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("seen.join()"),
            "caller,undefined,job caller,after await caller");
}

TEST_F(EvaluateModuleTest, RestoresTheFrameWhenTheModuleThrows) {
  EnterCallerFrame();
  v8::Local<v8::Module> module = Compile(
      isolate(), "globalThis.thrownIn = String(als.getStore()); throw 7;");
  ASSERT_TRUE(module->InstantiateModule(context(), Resolve).FromMaybe(false));
  v8::TryCatch try_catch(isolate());
  v8::Local<v8::Value> result;
  bool evaluated = EvaluateModule(context(), module).ToLocal(&result);
  // V8 10.2 throws; V8 with top-level await returns a rejected promise.
  if (evaluated) {
    ASSERT_TRUE(result->IsPromise());
    EXPECT_EQ(result.As<v8::Promise>()->State(), v8::Promise::kRejected);
  } else {
    EXPECT_TRUE(try_catch.HasCaught());
  }
  EXPECT_EQ(module->GetStatus(), v8::Module::kErrored);
  try_catch.Reset();
  EXPECT_EQ(RunString("thrownIn"), "undefined");
  EXPECT_EQ(RunString("String(als.getStore())"), "caller");
}

TEST_F(EvaluateModuleTest, NeedsAnInstalledContext) {
  v8::Local<v8::Context> bare = v8::Context::New(isolate());
  v8::Context::Scope scope(bare);
  v8::Local<v8::Module> module =
      Compile(isolate(), "globalThis.evaluated = true;");
  ASSERT_TRUE(module->InstantiateModule(bare, Resolve).FromMaybe(false));
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(EvaluateModule(bare, module).IsEmpty());
  ASSERT_TRUE(try_catch.HasCaught());
  v8::String::Utf8Value message(isolate(), try_catch.Exception());
  EXPECT_NE(std::string(*message).find("EvaluateModule"), std::string::npos);
  EXPECT_EQ(module->GetStatus(), v8::Module::kInstantiated);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
