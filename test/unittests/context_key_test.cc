// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ContextKey: a C++ view of one async context value, readable only with the
// key, and the stores and variables of JavaScript wrapped by brand.

#include <memory>
#include <string>

#include "test/unittests/v8_fixture.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using ContextKeyTest = V8Test;
using ContextKeyDeathTest = V8Test;

TEST_F(ContextKeyTest, ContextKeyFromCpp) {
  ContextKey key(context(), "requestId");
  EXPECT_TRUE(key.Get(context()).ToLocalChecked()->IsUndefined());
  {
    ContextKey::Scope scope(key, context(),
                            v8::String::NewFromUtf8Literal(isolate(), "r1"));
    EXPECT_TRUE(key.Has(context()));
    Run("globalThis.snap = new AsyncContext.Snapshot();");
  }
  EXPECT_FALSE(key.Has(context()));
  Run("globalThis.probe = () => 1;");
  // A snapshot taken in the C++ scope restores the C++ value too.
  Run("globalThis.inSnap = (f) => snap.run(f);");
  v8::Local<v8::Value> seen;
  {
    v8::Local<v8::Function> fn =
        v8::Function::New(
            context(),
            [](const v8::FunctionCallbackInfo<v8::Value>& info) {
              auto* k = static_cast<ContextKey*>(
                  info.Data().As<v8::External>()->Value());
              info.GetReturnValue().Set(
                  k->Get(info.GetIsolate()->GetCurrentContext())
                      .ToLocalChecked());
            },
            v8::External::New(isolate(), &key))
            .ToLocalChecked();
    context()
        ->Global()
        ->Set(context(), v8::String::NewFromUtf8Literal(isolate(), "readKey"),
              fn)
        .Check();
  }
  EXPECT_EQ(RunString("inSnap(() => readKey())"), "r1");
}

TEST_F(ContextKeyTest, ContextKeyWrapsAnAsyncLocalStorage) {
  Run("globalThis.als = new AsyncLocalStorage({defaultValue: 'dflt'});");
  auto key = ContextKey::FromJavaScript(context(), Run("als"));
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(
      *v8::String::Utf8Value(isolate(), key->Get(context()).ToLocalChecked()),
      std::string("dflt"));
  EXPECT_EQ(ContextKey::FromJavaScript(context(), Run("({})")), nullptr);
}

TEST_F(ContextKeyDeathTest, ContextKeyScopesClosedOutOfOrderAreFatal) {
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

TEST_F(ContextKeyDeathTest, ContextKeyOfAnotherIsolateIsFatal) {
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

// Stores are recognized by brand, not by the global's name.
TEST_F(ContextKeyTest, FromJavaScriptRecognizesStoresByBrand) {
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
