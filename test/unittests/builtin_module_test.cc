// Copyright 2026 the asyncctx authors. All rights reserved.
//
// node:diagnostics_channel and the by-specifier entry points of
// include/asyncctx/module.h (IsBuiltinModuleSpecifier, GetBuiltinModule,
// GetBuiltinModuleExports), used the way a host's resolver and `require` use
// them (docs/embedding.md).

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

using BuiltinModuleTest = V8Test;

// A host resolver that knows only the built-ins.
v8::MaybeLocal<v8::Module> Resolve(v8::Local<v8::Context> context,
                                   v8::Local<v8::String> specifier,
                                   v8::Local<v8::FixedArray>,
                                   v8::Local<v8::Module>) {
  v8::String::Utf8Value name(v8::Isolate::GetCurrent(), specifier);
  return GetBuiltinModule(context, *name);
}

v8::Local<v8::Module> Compile(v8::Isolate* isolate, const std::string& code) {
  v8::ScriptOrigin origin = host_compat::MakeModuleOrigin(
      isolate, v8::String::NewFromUtf8Literal(isolate, "test.mjs"));
  v8::ScriptCompiler::Source source(
      v8::String::NewFromUtf8(isolate, code.c_str()).ToLocalChecked(), origin);
  return v8::ScriptCompiler::CompileModule(isolate, &source).ToLocalChecked();
}

void RunModule(TestIsolate& env, const std::string& code) {
  v8::Local<v8::Context> context = env.context();
  v8::Local<v8::Module> module = Compile(env.isolate(), code);
  v8::TryCatch try_catch(env.isolate());
  ASSERT_TRUE(module->InstantiateModule(context, Resolve).FromMaybe(false));
  v8::Local<v8::Value> result;
  ASSERT_TRUE(module->Evaluate(context).ToLocal(&result));
  env.runtime()->RunMicrotasks(context);
  EXPECT_FALSE(try_catch.HasCaught());
  EXPECT_EQ(module->GetStatus(), v8::Module::kEvaluated);
}

// The pending exception of `try_catch` as "Error|code|message".
std::string Describe(v8::Local<v8::Context> context,
                     const v8::TryCatch& try_catch) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::Local<v8::Value> exception = try_catch.Exception();
  if (exception.IsEmpty() || !exception->IsObject())
    return "(no error object)";
  v8::Local<v8::Object> error = exception.As<v8::Object>();
  auto get = [&](const char* key) {
    v8::Local<v8::Value> value =
        error
            ->Get(context,
                  v8::String::NewFromUtf8(isolate, key).ToLocalChecked())
            .ToLocalChecked();
    return std::string(*v8::String::Utf8Value(isolate, value));
  };
  return get("name") + "|" + get("code") + "|" + get("message");
}

TEST_F(BuiltinModuleTest, RecognizesSpecifiers) {
  EXPECT_TRUE(IsDiagnosticsChannelSpecifier("node:diagnostics_channel"));
  EXPECT_TRUE(IsDiagnosticsChannelSpecifier("diagnostics_channel"));
  EXPECT_FALSE(IsDiagnosticsChannelSpecifier("node:diagnostics_channel/"));
  EXPECT_FALSE(IsDiagnosticsChannelSpecifier("diagnostics-channel"));
  EXPECT_FALSE(IsDiagnosticsChannelSpecifier("node:async_hooks"));
  EXPECT_FALSE(IsDiagnosticsChannelSpecifier(""));

  for (const char* name : {"node:async_hooks", "async_hooks",
                           "node:diagnostics_channel", "diagnostics_channel"})
    EXPECT_TRUE(IsBuiltinModuleSpecifier(name)) << name;
  for (const char* name : {"node:fs", "fs", "node:", "", "NODE:async_hooks",
                           "node:diagnostics_channel.js", "./async_hooks"})
    EXPECT_FALSE(IsBuiltinModuleSpecifier(name)) << name;
  // A string_view is not NUL-terminated: only its own characters count.
  std::string_view prefix("async_hooks_x", 11);
  EXPECT_TRUE(IsBuiltinModuleSpecifier(prefix));
  EXPECT_FALSE(IsBuiltinModuleSpecifier(std::string_view("async_hook", 10)));
}

TEST_F(BuiltinModuleTest, DiagnosticsChannelExportsAreTheInstalledObjects) {
  RunModule(env(), R"(
    import dcDefault, * as ns from 'node:diagnostics_channel';
    import { channel, hasSubscribers, subscribe, unsubscribe, tracingChannel,
             Channel } from 'diagnostics_channel';
    globalThis.result = [
      dcDefault === diagnosticsChannel,
      ns.default === diagnosticsChannel,
      channel === diagnosticsChannel.channel,
      hasSubscribers === diagnosticsChannel.hasSubscribers,
      subscribe === diagnosticsChannel.subscribe,
      unsubscribe === diagnosticsChannel.unsubscribe,
      tracingChannel === diagnosticsChannel.tracingChannel,
      Channel === diagnosticsChannel.Channel,
      Object.keys(ns).sort().join(),
    ].join();
  )");
  EXPECT_EQ(RunString("result"),
            "true,true,true,true,true,true,true,true,"
            "Channel,channel,default,hasSubscribers,subscribe,tracingChannel,"
            "unsubscribe");
}

TEST_F(BuiltinModuleTest, BindStoreThroughTheModules) {
  // A library publishing through the module and a tool binding its store
  // through the other module share one registry and one frame.
  RunModule(env(), R"(
    import { AsyncLocalStorage } from 'node:async_hooks';
    import dc from 'node:diagnostics_channel';
    const als = new AsyncLocalStorage();
    globalThis.seen = [];
    diagnosticsChannel.channel('lib:op').bindStore(als, (d) => d.id);
    await dc.channel('lib:op').runStores({id: 'req-7'}, async () => {
      await null;
      seen.push(als.getStore());
    });
    seen.push(String(als.getStore()));
  )");
  EXPECT_EQ(RunString("seen.join()"), "req-7,undefined");
}

TEST_F(BuiltinModuleTest, BySpecifierIsTheSameModuleAndExports) {
  v8::Local<v8::Module> dc =
      GetDiagnosticsChannelModule(context()).ToLocalChecked();
  v8::Local<v8::Module> hooks = GetAsyncHooksModule(context()).ToLocalChecked();
  EXPECT_TRUE(dc == GetDiagnosticsChannelModule(context()).ToLocalChecked());
  EXPECT_FALSE(dc == hooks);
  EXPECT_TRUE(GetBuiltinModule(context(), "node:diagnostics_channel")
                  .ToLocalChecked() == dc);
  EXPECT_TRUE(
      GetBuiltinModule(context(), "diagnostics_channel").ToLocalChecked() ==
      dc);
  EXPECT_TRUE(
      GetBuiltinModule(context(), "node:async_hooks").ToLocalChecked() ==
      hooks);
  EXPECT_TRUE(GetBuiltinModule(context(), "async_hooks").ToLocalChecked() ==
              hooks);

  v8::Local<v8::Object> dc_exports =
      GetDiagnosticsChannelExports(context()).ToLocalChecked();
  EXPECT_TRUE(dc_exports->StrictEquals(Run("diagnosticsChannel")));
  EXPECT_TRUE(Run("Object.isFrozen(diagnosticsChannel) && "
                  "Object.getPrototypeOf(diagnosticsChannel) === null")
                  ->IsTrue());
  for (const char* name : {"node:diagnostics_channel", "diagnostics_channel"}) {
    EXPECT_TRUE(GetBuiltinModuleExports(context(), name)
                    .ToLocalChecked()
                    ->StrictEquals(dc_exports))
        << name;
  }
  for (const char* name : {"node:async_hooks", "async_hooks"}) {
    EXPECT_TRUE(GetBuiltinModuleExports(context(), name)
                    .ToLocalChecked()
                    ->StrictEquals(Run("asyncHooks")))
        << name;
  }
}

TEST_F(BuiltinModuleTest, UnknownSpecifierThrowsUnknownBuiltinModule) {
  for (const char* name : {"node:fs", "fs", "", "node:diagnostics_channel/x"}) {
    v8::TryCatch try_catch(isolate());
    EXPECT_TRUE(GetBuiltinModule(context(), name).IsEmpty()) << name;
    ASSERT_TRUE(try_catch.HasCaught()) << name;
    EXPECT_EQ(Describe(context(), try_catch),
              std::string("Error|ERR_UNKNOWN_BUILTIN_MODULE|No such built-in "
                          "module: ") +
                  name);
    try_catch.Reset();
    EXPECT_TRUE(GetBuiltinModuleExports(context(), name).IsEmpty()) << name;
    ASSERT_TRUE(try_catch.HasCaught()) << name;
    EXPECT_EQ(Describe(context(), try_catch),
              std::string("Error|ERR_UNKNOWN_BUILTIN_MODULE|No such built-in "
                          "module: ") +
                  name);
  }
}

TEST_F(BuiltinModuleTest, ImportOfAnUnknownBuiltinFailsWithTheError) {
  v8::Local<v8::Module> module = Compile(isolate(), "import x from 'node:fs';");
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(module->InstantiateModule(context(), Resolve).IsNothing());
  ASSERT_TRUE(try_catch.HasCaught());
  EXPECT_EQ(Describe(context(), try_catch),
            "Error|ERR_UNKNOWN_BUILTIN_MODULE|No such built-in module: "
            "node:fs");
}

TEST_F(BuiltinModuleTest, WorksWithoutTheDiagnosticsChannelGlobal) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  InstallOptions options;
  options.diagnostics_channel = "";
  ASSERT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  v8::Context::Scope scope(other);
  EXPECT_EQ(RunStringIn(other, "typeof diagnosticsChannel"), "undefined");
  v8::Local<v8::Object> exports =
      GetDiagnosticsChannelExports(other).ToLocalChecked();
  EXPECT_TRUE(GetBuiltinModuleExports(other, "diagnostics_channel")
                  .ToLocalChecked()
                  ->StrictEquals(exports));
  v8::Local<v8::Value> channel =
      exports->Get(other, v8::String::NewFromUtf8Literal(isolate(), "channel"))
          .ToLocalChecked();
  EXPECT_TRUE(channel->IsFunction());
  // Each context has its own registry and classes.
  EXPECT_FALSE(exports->StrictEquals(Run("diagnosticsChannel")));
  EXPECT_FALSE(GetDiagnosticsChannelModule(other).ToLocalChecked() ==
               GetDiagnosticsChannelModule(context()).ToLocalChecked());
}

TEST_F(BuiltinModuleTest, UninstalledContextThrows) {
  v8::Local<v8::Context> bare = v8::Context::New(isolate());
  for (const char* name : {"node:diagnostics_channel", "node:async_hooks"}) {
    v8::TryCatch try_catch(isolate());
    EXPECT_TRUE(GetBuiltinModule(bare, name).IsEmpty());
    ASSERT_TRUE(try_catch.HasCaught());
    v8::String::Utf8Value message(isolate(), try_catch.Exception());
    EXPECT_NE(std::string(*message).find("Runtime::Install"), std::string::npos)
        << *message;
    try_catch.Reset();
    EXPECT_TRUE(GetBuiltinModuleExports(bare, name).IsEmpty());
    EXPECT_TRUE(try_catch.HasCaught());
  }
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(GetDiagnosticsChannelModule(bare).IsEmpty());
  EXPECT_TRUE(try_catch.HasCaught());
  try_catch.Reset();
  EXPECT_TRUE(GetDiagnosticsChannelExports(bare).IsEmpty());
  EXPECT_TRUE(try_catch.HasCaught());
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
