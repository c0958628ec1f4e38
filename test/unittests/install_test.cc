// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Runtime::Install: the globals it defines, its options, and that it is all
// or nothing.

#include <memory>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "test/unittests/v8_fixture.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

using InstallTest = V8Test;

TEST_F(InstallTest, InstallsTheGlobals) {
  EXPECT_EQ(RunString("typeof AsyncLocalStorage"), "function");
  EXPECT_EQ(RunString("typeof AsyncResource"), "function");
  EXPECT_EQ(RunString("typeof queueMicrotask"), "function");
  EXPECT_EQ(RunString("typeof AsyncContext.Variable"), "function");
  EXPECT_EQ(RunString("typeof AsyncContext.Snapshot"), "function");
  EXPECT_EQ(RunString("Object.keys(asyncHooks).sort().join()"),
            "AsyncLocalStorage,AsyncResource,asyncWrapProviders,createHook,"
            "executionAsyncId,executionAsyncResource,triggerAsyncId");
  EXPECT_EQ(RunString("asyncHooks.AsyncResource === AsyncResource"), "true");
}

TEST_F(InstallTest, InstallingTwiceThrows) {
  v8::TryCatch try_catch(isolate());
  EXPECT_TRUE(runtime()->Install(context()).IsNothing());
  ASSERT_TRUE(try_catch.HasCaught());
  v8::String::Utf8Value message(isolate(), try_catch.Exception());
  EXPECT_NE(std::string(*message).find("already called"), std::string::npos);
}

TEST_F(InstallTest, CustomNamesAndOmittedGlobals) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  InstallOptions options;
  options.async_local_storage = "ALS";
  options.async_context = "";
  ASSERT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  EXPECT_EQ(RunStringIn(other, "typeof ALS"), "function");
  EXPECT_EQ(RunStringIn(other, "typeof AsyncLocalStorage"), "undefined");
  EXPECT_EQ(RunStringIn(other, "typeof AsyncContext"), "undefined");
}

// A script that ran in a context before Install() put setters for the
// binding names, and getters for V8's continuation-data accessors, on
// Object.prototype: Install hands them nothing (the binding objects have no
// prototype; only the extras object's own accessors are taken), and the
// stores stay private.
TEST_F(InstallTest, ObjectPrototypeSettersBeforeInstallSeeNoBinding) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  RunStringIn(other, R"JS(
    globalThis.caught = [];
    for (const name of ['getFrame', 'setFrame', 'swapFrame', 'restoreFrame',
                        'enqueueMicrotask', 'fields', 'stack', 'depth',
                        'hookFields', 'contextFields', 'constants',
                        'hostResourceAt', 'queueDestroy']) {
      Object.defineProperty(Object.prototype, name, {
        set(v) { caught.push(name); },
        get() { return undefined; },
        configurable: true,
      });
    }
    for (const name of ['getContinuationPreservedEmbedderData',
                        'setContinuationPreservedEmbedderData']) {
      Object.defineProperty(Object.prototype, name, {
        get() { caught.push(name); return () => undefined; },
        configurable: true,
      });
    }
  )JS");
  ASSERT_TRUE(runtime()->Install(other).FromMaybe(false));
  EXPECT_EQ(RunStringIn(other, R"JS(
    const als = new AsyncLocalStorage();
    const seen = als.run('secret', () => als.getStore());
    `${seen} ${String(als.getStore())} [${caught.join()}]`
  )JS"),
            "secret undefined []");
}

// The globals are made at their first read (lazy data properties), and look
// like plain data properties before and after it: the same descriptor, the
// same objects whichever global is read first, a write, a delete or a
// defineProperty before the first read replaces them as it would a data
// property, and a frozen global keeps them.
TEST_F(InstallTest, GlobalsAreDataPropertiesMadeAtTheirFirstRead) {
  const char* const kDescribe = R"JS(
    globalThis.describe = (name) => {
      const d = Object.getOwnPropertyDescriptor(globalThis, name);
      return `${Object.keys(d).join('/')}:${typeof d.value}:${d.writable}` +
             `${d.enumerable}${d.configurable}`;
    };
  )JS";
  const std::string kData = "value/writable/enumerable/configurable:";
  const char* const kGlobals[][2] = {
      {"AsyncLocalStorage", "function"}, {"AsyncResource", "function"},
      {"queueMicrotask", "function"},    {"AsyncContext", "object"},
      {"asyncHooks", "object"},          {"diagnosticsChannel", "object"},
  };
  for (const auto& [name, type] : kGlobals) {
    // The first read of `name` is the descriptor's, in a fresh context.
    v8::Local<v8::Context> other = v8::Context::New(isolate());
    ASSERT_TRUE(runtime()->Install(other).FromMaybe(false));
    RunStringIn(other, kDescribe);
    EXPECT_EQ(RunStringIn(other, std::string("describe('") + name + "')"),
              kData + type + ":truefalsetrue")
        << name;
    EXPECT_EQ(RunStringIn(other, std::string("describe('") + name + "')"),
              kData + type + ":truefalsetrue")
        << name;
    EXPECT_EQ(RunStringIn(other, "Object.keys(globalThis).includes('" +
                                     std::string(name) + "')"),
              "false");
    // Whichever is read first, the namespaces hold the same classes.
    EXPECT_EQ(RunStringIn(other,
                          "asyncHooks.AsyncLocalStorage === AsyncLocalStorage "
                          "&& asyncHooks.AsyncResource === AsyncResource && "
                          "typeof AsyncContext.Variable"),
              "function")
        << name;
  }

  v8::Local<v8::Context> other = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(other).FromMaybe(false));
  EXPECT_EQ(RunStringIn(other, R"JS(
    AsyncLocalStorage = 'mine';
    delete globalThis.AsyncResource;
    Object.defineProperty(globalThis, 'AsyncContext', {value: 7});
    const inherited = typeof Object.create(globalThis).queueMicrotask;
    [AsyncLocalStorage, typeof AsyncResource, AsyncContext,
     'AsyncResource' in globalThis, inherited,
     Object.getOwnPropertyDescriptor(globalThis, 'queueMicrotask').value ===
         queueMicrotask].join()
  )JS"),
            "mine,undefined,7,false,function,true");

  // Frozen before the first read: read-only data properties after it.
  v8::Local<v8::Context> frozen = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(frozen).FromMaybe(false));
  EXPECT_EQ(RunStringIn(frozen, R"JS(
    Object.freeze(globalThis);
    const d = Object.getOwnPropertyDescriptor(globalThis, 'AsyncContext');
    AsyncContext.x = 1;  // the namespace object itself is not frozen
    [typeof d.value, d.writable, d.configurable, Object.isFrozen(globalThis),
     typeof AsyncLocalStorage, AsyncContext.x].join()
  )JS"),
            "object,false,false,true,function,1");

  // Renamed and omitted globals are made lazily too.
  v8::Local<v8::Context> renamed = v8::Context::New(isolate());
  InstallOptions options;
  options.async_local_storage = "ALS";
  options.async_hooks = "";
  ASSERT_TRUE(runtime()->Install(renamed, options).FromMaybe(false));
  RunStringIn(renamed, kDescribe);
  EXPECT_EQ(RunStringIn(renamed, "describe('ALS')"),
            kData + "function:truefalsetrue");
  EXPECT_EQ(RunStringIn(renamed,
                        "typeof asyncHooks + typeof AsyncLocalStorage + "
                        "new ALS().run(3, () => 'x')"),
            "undefinedundefinedx");
}

// InstallOptions::finalization_registry_context puts the layer's
// FinalizationRegistry in place of V8's as lazy data properties (its module
// runs at the first read of either): the global and the prototype's
// `constructor` keep their attributes and are one function, whichever is
// read first; a non-configurable global gets it at once; a failure puts
// V8's back (all or nothing).
TEST_F(InstallTest, FinalizationRegistryIsReplacedWithItsAttributes) {
  const char* const kSaveBuiltin =
      "globalThis.builtin = FinalizationRegistry; ''";
  const char* const kDescribe = R"JS(
    (() => {
      const d = Object.getOwnPropertyDescriptor(globalThis,
                                                'FinalizationRegistry');
      const c = Object.getOwnPropertyDescriptor(builtin.prototype,
                                                'constructor');
      return [typeof d.value, d.writable, d.enumerable, d.configurable,
              c.writable, c.enumerable, c.configurable,
              d.value === c.value, d.value !== builtin,
              d.value.prototype === builtin.prototype, d.value.length,
              d.value.name].join();
    })()
  )JS";
  const std::string kReplaced = "true,true,1,FinalizationRegistry";
  // A new context where `before` ran, with the builtin saved first.
  auto prepared = [&](const char* before) {
    v8::Local<v8::Context> context = v8::Context::New(isolate());
    RunStringIn(context, kSaveBuiltin);
    RunStringIn(context, before);
    return context;
  };

  // The prototype's constructor read first, then the global.
  v8::Local<v8::Context> first = prepared("''");
  ASSERT_TRUE(runtime()->Install(first).FromMaybe(false));
  EXPECT_EQ(RunStringIn(first,
                        "const c = builtin.prototype.constructor;"
                        "String(c === FinalizationRegistry && c !== builtin)"),
            "true");
  EXPECT_EQ(RunStringIn(first, kDescribe),
            "function,true,false,true,true,false,true,true," + kReplaced);

  // A non-configurable (writable) global is replaced at once.
  v8::Local<v8::Context> fixed = prepared(
      "Object.defineProperty(globalThis, 'FinalizationRegistry', "
      "{configurable: false}); ''");
  ASSERT_TRUE(runtime()->Install(fixed).FromMaybe(false));
  EXPECT_EQ(RunStringIn(fixed, kDescribe),
            "function,true,false,false,true,false,true,true," + kReplaced);

  // An enumerable global stays enumerable, and writable, once replaced.
  v8::Local<v8::Context> enumerable = prepared(
      "Object.defineProperty(globalThis, 'FinalizationRegistry', "
      "{enumerable: true}); ''");
  ASSERT_TRUE(runtime()->Install(enumerable).FromMaybe(false));
  EXPECT_EQ(RunStringIn(enumerable, kDescribe),
            "function,true,true,true,true,false,true,true," + kReplaced);

  // A global that is not V8's constructor (here an accessor, which the
  // primordials read through) is left as it is, and so is the builtin
  // prototype's `constructor`.
  v8::Local<v8::Context> accessor = prepared(
      "Object.defineProperty(globalThis, 'FinalizationRegistry', "
      "{get() { return builtin; }, configurable: true}); ''");
  ASSERT_TRUE(runtime()->Install(accessor).FromMaybe(false));
  EXPECT_EQ(RunStringIn(accessor, R"JS(
    [typeof Object.getOwnPropertyDescriptor(globalThis,
                                            'FinalizationRegistry').get,
     FinalizationRegistry === builtin,
     builtin.prototype.constructor === builtin].join()
  )JS"),
            "function,true,true");

  // A prototype constructor that cannot change: Install fails and puts the
  // builtin back.
  v8::Local<v8::Context> frozen = prepared(
      "Object.defineProperty(builtin.prototype, 'constructor', "
      "{writable: false, configurable: false}); ''");
  {
    v8::TryCatch try_catch(isolate());
    EXPECT_TRUE(runtime()->Install(frozen).IsNothing());
    EXPECT_TRUE(try_catch.HasCaught());
  }
  EXPECT_FALSE(runtime()->IsInstalled(frozen));
  EXPECT_EQ(RunStringIn(frozen,
                        "String(FinalizationRegistry === builtin && "
                        "typeof AsyncLocalStorage)"),
            "undefined");
}

// Install is all or nothing, and a global that cannot be
// defined is a failure.
TEST_F(InstallTest, InstallIsAllOrNothing) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  RunStringIn(other,
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
  EXPECT_EQ(RunStringIn(other,
                        "typeof AsyncLocalStorage + typeof AsyncResource + "
                        "queueMicrotask"),
            "undefinedundefinedmine");
  // Installing under other names then works.
  InstallOptions options;
  options.queue_microtask = "";
  EXPECT_TRUE(runtime()->Install(other, options).FromMaybe(false));
  EXPECT_EQ(RunStringIn(other,
                        "const als = new AsyncLocalStorage();"
                        "als.run(7, () => String(als.getStore()))"),
            "7");
}

// Policies other than kExplicit are refused at Install.
TEST_F(InstallTest, AutoMicrotasksPolicyIsRefusedAtInstall) {
  for (v8::MicrotasksPolicy policy :
       {v8::MicrotasksPolicy::kAuto, v8::MicrotasksPolicy::kScoped}) {
    isolate()->SetMicrotasksPolicy(policy);
    v8::Local<v8::Context> other = v8::Context::New(isolate());
    v8::TryCatch try_catch(isolate());
    EXPECT_TRUE(runtime()->Install(other).IsNothing());
    ASSERT_TRUE(try_catch.HasCaught());
    EXPECT_NE(
        std::string(*v8::String::Utf8Value(isolate(), try_catch.Exception()))
            .find("the isolate's microtasks policy"),
        std::string::npos);
    EXPECT_FALSE(runtime()->IsInstalled(other));
  }
  isolate()->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
}

// A context whose embedder data slots another library uses is not taken
// for an installed one.
TEST_F(InstallTest, ForeignEmbedderDataIsNotTakenForAnInstallation) {
  v8::Local<v8::Context> other = v8::Context::New(isolate());
  static int foreign[4];
  for (int i = 38; i < 46; i += 1)
    other->SetAlignedPointerInEmbedderData(i, &foreign[0]);
  EXPECT_FALSE(runtime()->IsInstalled(other));
  EXPECT_TRUE(runtime()->Install(other).FromMaybe(false));
  EXPECT_TRUE(runtime()->IsInstalled(other));
}

// queueMicrotask's ring (V8 10.2) belongs to a context and its runners to
// that context's queue: a checkpoint of another queue, whether it completes
// or is terminated, drops none of them.
TEST_F(InstallTest, QueueMicrotaskCallbackSurvivesACheckpointOfAnotherQueue) {
  std::unique_ptr<v8::MicrotaskQueue> queue =
      v8::MicrotaskQueue::New(isolate(), v8::MicrotasksPolicy::kExplicit);
  absl::Cleanup destroy_runtime = [this] { env().DestroyRuntime(); };
  v8::Local<v8::Context> own =
      v8::Context::New(isolate(), nullptr, v8::MaybeLocal<v8::ObjectTemplate>(),
                       v8::MaybeLocal<v8::Value>(),
                       v8::DeserializeInternalFieldsCallback(), queue.get());
  ASSERT_TRUE(runtime()->Install(own).FromMaybe(false));
  RunString(
      "globalThis.als = new AsyncLocalStorage(); globalThis.ran = [];"
      "als.run('x', () => queueMicrotask(() => ran.push('a:' + "
      "als.getStore()))); ''");
  RunStringIn(own, "queueMicrotask(() => {}); ''");
  runtime()->RunMicrotasks(own);
  RunString(
      "als.run('y', () => queueMicrotask(() => ran.push('b:' + "
      "als.getStore()))); ''");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.join()"), "a:x,b:y");

  // A terminated checkpoint of the other queue drops that queue's jobs only.
  RunString(
      "als.run('z', () => queueMicrotask(() => ran.push('c:' + "
      "als.getStore()))); ''");
  v8::Local<v8::Function> terminate =
      v8::Function::New(own,
                        [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                          info.GetIsolate()->TerminateExecution();
                        })
          .ToLocalChecked();
  ASSERT_TRUE(
      own->Global()
          ->Set(own, v8::String::NewFromUtf8Literal(isolate(), "terminateNow"),
                terminate)
          .FromMaybe(false));
  RunStringIn(own,
              "globalThis.als = new AsyncLocalStorage(); globalThis.ran = [];"
              "als.run('t', () => { queueMicrotask(() => terminateNow());"
              "  queueMicrotask(() => ran.push('dropped')); }); ''");
  runtime()->RunMicrotasks(own);
  isolate()->CancelTerminateExecution();
  RunString(
      "als.run('w', () => queueMicrotask(() => ran.push('d:' + "
      "als.getStore()))); ''");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("ran.join()"), "a:x,b:y,c:z,d:w");
  // The terminated queue's own ring starts again from its next push.
  RunStringIn(own,
              "als.run('u', () => queueMicrotask(() => "
              "ran.push('e:' + als.getStore()))); ''");
  runtime()->RunMicrotasks(own);
  EXPECT_EQ(RunStringIn(own, "ran.join()"), "e:u");
}

// A context with its own MicrotaskQueue gets its jobs run, next to a
// context that uses the isolate's queue.
TEST_F(InstallTest, ContextWithItsOwnMicrotaskQueue) {
  std::unique_ptr<v8::MicrotaskQueue> queue =
      v8::MicrotaskQueue::New(isolate(), v8::MicrotasksPolicy::kExplicit);
  v8::Local<v8::Context> own =
      v8::Context::New(isolate(), nullptr, v8::MaybeLocal<v8::ObjectTemplate>(),
                       v8::MaybeLocal<v8::Value>(),
                       v8::DeserializeInternalFieldsCallback(), queue.get());
  ASSERT_TRUE(runtime()->Install(own).FromMaybe(false));
  RunStringIn(
      own,
      "globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];"
      "als.run('own', async () => { await null; seen.push(als.getStore()); "
      "  queueMicrotask(() => seen.push('q:' + als.getStore())); }); ''");
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];"
      "als.run('default', async () => { await null; "
      "seen.push(als.getStore()); });");
  runtime()->RunMicrotasks(own);
  EXPECT_EQ(RunStringIn(own, "seen.join()"), "own,q:own");
  EXPECT_EQ(RunString("seen.join()"), "");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("seen.join()"), "default");

  // A CallbackScope's checkpoint uses the context's queue too.
  AsyncResource resource(own, "X");
  {
    CallbackScope scope(&resource);
    RunStringIn(own, "Promise.resolve().then(() => seen.push('cb')); ''");
  }
  EXPECT_EQ(RunStringIn(own, "seen.join()"), "own,q:own,cb");
  // The Runtime is destroyed before the queue, and unregisters from it: a
  // later checkpoint of the queue runs its jobs and calls nothing of the
  // freed Runtime (AddressSanitizer reports a use after free otherwise).
  env().DestroyRuntime();
  bool ran = false;
  queue->EnqueueMicrotask(
      isolate(), [](void* data) { *static_cast<bool*>(data) = true; }, &ran);
  queue->PerformCheckpoint(isolate());
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
