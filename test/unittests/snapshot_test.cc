// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8 startup snapshots (include/asyncctx/snapshot.h,
// docs/embedding.md "Rules for hosts"). Real v8::SnapshotCreator, real
// restored isolates.

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "src/external_references.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-snapshot.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

std::string RunIn(v8::Local<v8::Context> context, const char* source) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::HandleScope handle_scope(isolate);
  v8::Context::Scope scope(context);
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> result;
  if (!v8::Script::Compile(
           context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
           .ToLocal(&script) ||
      !script->Run(context).ToLocal(&result)) {
    v8::String::Utf8Value error(isolate, try_catch.Exception());
    return std::string("threw: ") + (*error ? *error : "?");
  }
  v8::String::Utf8Value utf8(isolate, result);
  return *utf8 ? *utf8 : "?";
}

enum class SnapshotOf { kPlainContexts, kInstalledContext };

// A snapshot made the way docs/embedding.md describes: the default context
// and one added context (index 0) ran `setup`; neither was installed. The
// snapshotting isolate has a Runtime (see SnapshotHost), so the blob needs
// `references` while that Runtime is alive. With kInstalledContext, the
// default context is installed too (against the rules).
struct SnapshotHost {
  // Install into another context of the snapshotting isolate (dropped
  // before the snapshot). With the Runtime alive at CreateBlob(), V8 13.6
  // then refuses the snapshot (the dropped context stays alive through the
  // isolate's continuation data, and the Runtime holds handles to it).
  bool install_elsewhere = false;
  // Keep the Runtime until after CreateBlob().
  bool runtime_alive_at_blob = true;
};

v8::StartupData MakeSnapshot(SnapshotOf what,
                             const char* setup,
                             const intptr_t* references,
                             SnapshotHost host = {}) {
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  params.external_references = references;
  v8::Isolate* isolate = host::AllocateIsolate();
  v8::StartupData blob;
  {
    std::unique_ptr<v8::SnapshotCreator> creator =
        host_compat::NewSnapshotCreator(isolate, params);
    std::unique_ptr<Runtime> runtime;
    {
      v8::HandleScope handle_scope(isolate);
      isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
      RuntimeOptions options;
      options.platform = TestPlatform();
      runtime = Runtime::Create(isolate, options);
      if (host.install_elsewhere) {
        v8::HandleScope other_scope(isolate);
        v8::Local<v8::Context> other = v8::Context::New(isolate);
        EXPECT_TRUE(runtime->Install(other).FromMaybe(false));
        EXPECT_EQ("ok", RunIn(other,
                              "new AsyncLocalStorage().run(1, async () => {"
                              "  await null; }); 'ok'"));
        runtime->RunMicrotasks(other);
      }
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      v8::Local<v8::Context> added = v8::Context::New(isolate);
      EXPECT_EQ("ok", RunIn(context, setup));
      EXPECT_EQ("ok", RunIn(added, setup));
      if (what == SnapshotOf::kInstalledContext) {
        EXPECT_TRUE(runtime->Install(context).FromMaybe(false));
      }
      creator->SetDefaultContext(context);
      EXPECT_EQ(creator->AddContext(added), 0u);
    }
    if (!host.runtime_alive_at_blob)
      runtime.reset();
    blob =
        creator->CreateBlob(v8::SnapshotCreator::FunctionCodeHandling::kClear);
    runtime.reset();
  }
  if (host_compat::kSnapshotCreatorDisposesIsolate) {
    host::ForgetIsolate(isolate);
  } else {
    host::DisposeIsolate(isolate);
  }
  return blob;
}

constexpr char kSetup[] =
    "globalThis.fromSnapshot = 42;"
    "globalThis.later = async (v) => { await null; return v; }; 'ok'";

// AsyncLocalStorage across await, in both orders of completion, with an
// async function that came from the snapshot.
constexpr char kAcrossAwait[] =
    "globalThis.seen = [];"
    "const als = new AsyncLocalStorage();"
    "als.run('a', async () => {"
    "  await later(1); await null; seen.push(als.getStore()); });"
    "als.run('b', async () => { await null; seen.push(als.getStore()); });"
    "seen.push(String(als.getStore()));"
    "'ok'";

// An isolate restored from `blob`, with a Runtime.
class RestoredIsolate {
 public:
  explicit RestoredIsolate(v8::StartupData* blob)
      : allocator_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {
    v8::Isolate::CreateParams params;
    params.array_buffer_allocator = allocator_.get();
    params.snapshot_blob = blob;
    params.external_references = ExternalReferences();
    isolate_ = host::NewIsolate(params);
    isolate_->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
    v8::Isolate::Scope isolate_scope(isolate_);
    RuntimeOptions options;
    options.platform = TestPlatform();
    runtime_ = Runtime::Create(isolate_, options);
  }
  ~RestoredIsolate() {
    {
      v8::Isolate::Scope isolate_scope(isolate_);
      runtime_.reset();
    }
    host::DisposeIsolate(isolate_);
  }
  v8::Isolate* isolate() const { return isolate_; }
  Runtime* runtime() const { return runtime_.get(); }

 private:
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_;
  std::unique_ptr<Runtime> runtime_;
};

// The supported flow. Snapshot contexts that were never
// installed (the snapshotting isolate may have a Runtime: its references
// are in ExternalReferences()), restore, create the Runtime, then Install
// into the restored contexts.
void RestoreAndInstall(SnapshotHost host, const intptr_t* references) {
  v8::StartupData blob =
      MakeSnapshot(SnapshotOf::kPlainContexts, kSetup, references, host);
  ASSERT_NE(blob.data, nullptr);
  {
    RestoredIsolate restored(&blob);
    v8::Isolate* isolate = restored.isolate();
    v8::Isolate::Scope isolate_scope(isolate);
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> contexts[] = {
        v8::Context::New(isolate),
        v8::Context::FromSnapshot(isolate, 0).ToLocalChecked(),
    };
    for (v8::Local<v8::Context> context : contexts) {
      EXPECT_EQ("42", RunIn(context, "String(fromSnapshot)"));
      EXPECT_FALSE(restored.runtime()->IsInstalled(context));
      ASSERT_TRUE(restored.runtime()->Install(context).FromMaybe(false));
      EXPECT_EQ("ok", RunIn(context, kAcrossAwait));
      restored.runtime()->RunMicrotasks(context);
      EXPECT_EQ("undefined,b,a", RunIn(context, "seen.join()"));
    }
  }
  delete[] blob.data;
}

TEST(SnapshotTest, ContextsRestoredFromASnapshotAreInstalledAfterwards) {
  RestoreAndInstall(SnapshotHost(), ExternalReferences());
}

// A Runtime destroyed before CreateBlob() leaves nothing of asyncctx in the
// isolate, even after it was installed into (dropped) contexts there: no
// references are needed.
TEST(SnapshotTest, RuntimeDestroyedBeforeTheSnapshotNeedsNoReferences) {
  SnapshotHost host;
  host.install_elsewhere = true;
  host.runtime_alive_at_blob = false;
  RestoreAndInstall(host, nullptr);
}

// Without asyncctx's references, V8 cannot snapshot an isolate that has a
// Runtime (its message listener is in V8's heap): the list is needed, and
// the test above shows it is complete.
TEST(SnapshotDeathTest, IsolateWithARuntimeNeedsTheExternalReferences) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(MakeSnapshot(SnapshotOf::kPlainContexts, kSetup, nullptr),
               "Unknown external reference");
}

// An installed context cannot be snapshotted while its Runtime is alive: the
// Runtime holds (weak) handles to the context's objects, which V8 refuses
// in CreateBlob(): it prints "global handle not serialized" on stdout and
// aborts, with or without the references. The child sends its stdout to
// stderr, where EXPECT_DEATH looks. asyncctx gets no call before that to say
// it more clearly (docs/embedding.md, "Rules for hosts", rule 12).
TEST(SnapshotDeathTest, InstalledContextWithALiveRuntimeIsRefusedByV8) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::fflush(stdout);
        dup2(STDERR_FILENO, STDOUT_FILENO);
        MakeSnapshot(SnapshotOf::kInstalledContext, kSetup,
                     ExternalReferences());
      },
      "global handle not serialized");
}

// Once its Runtime is destroyed, an installed context is left detached (its
// bindings throw, its views of the execution-stack block are detached, its
// embedder data stops pointing to the Runtime), and V8 snapshots it like
// any other, given the references of the native functions still in it. A
// copy restored from the blob is not installed: the globals that came with
// it throw a clear error until Install() defines new ones.
TEST(SnapshotTest, ContextInstalledByADestroyedRuntimeRestoresUninstalled) {
  SnapshotHost host;
  host.runtime_alive_at_blob = false;
  v8::StartupData blob = MakeSnapshot(SnapshotOf::kInstalledContext, kSetup,
                                      ExternalReferences(), host);
  ASSERT_NE(blob.data, nullptr);
  {
    RestoredIsolate restored(&blob);
    v8::Isolate* isolate = restored.isolate();
    v8::Isolate::Scope isolate_scope(isolate);
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> context = v8::Context::New(isolate);
    EXPECT_EQ("42", RunIn(context, "String(fromSnapshot)"));
    EXPECT_FALSE(restored.runtime()->IsInstalled(context));
    EXPECT_EQ("function", RunIn(context, "typeof AsyncLocalStorage"));
    const char kDestroyed[] =
        "threw: Error: asyncctx: the Runtime of this context has been "
        "destroyed";
    EXPECT_EQ(kDestroyed,
              RunIn(context, "asyncHooks.createHook({init() {}}).enable()"));
    EXPECT_EQ(kDestroyed, RunIn(context, "new AsyncResource('X')"));
    EXPECT_EQ(kDestroyed, RunIn(context, "asyncHooks.executionAsyncId()"));
    EXPECT_EQ("ok", RunIn(context,
                          "globalThis.OldStorage = AsyncLocalStorage; 'ok'"));
    ASSERT_TRUE(restored.runtime()->Install(context).FromMaybe(false));
    EXPECT_TRUE(restored.runtime()->IsInstalled(context));
    EXPECT_EQ("false",
              RunIn(context, "String(OldStorage === AsyncLocalStorage)"));
    EXPECT_EQ("ok", RunIn(context, kAcrossAwait));
    restored.runtime()->RunMicrotasks(context);
    EXPECT_EQ("undefined,b,a", RunIn(context, "seen.join()"));
    EXPECT_EQ("1", RunIn(context, "String(asyncHooks.executionAsyncId())"));
  }
  delete[] blob.data;
}

void UnlistedCallback(const v8::FunctionCallbackInfo<v8::Value>&) {}

// Every native function asyncctx gives V8 is checked against the list, so
// one added without listing it fails in every test that reaches it.
TEST(SnapshotDeathTest, NativeFunctionMissingFromTheListIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      CheckExternalReference(reinterpret_cast<intptr_t>(&UnlistedCallback)),
      "asyncctx: fatal: internal error: a native function missing from "
      "asyncctx::ExternalReferences");
  const intptr_t* references = ExternalReferences();
  EXPECT_EQ(references, ExternalReferences());
  size_t count = 0;
  while (references[count] != 0)
    CheckExternalReference(references[count++]);
  EXPECT_GT(count, 0u);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
