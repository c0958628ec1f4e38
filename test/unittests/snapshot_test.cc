// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Issue 15 item 12: V8 startup snapshots (include/asyncctx/snapshot.h,
// docs/embedding.md "Rules for hosts"). Real v8::SnapshotCreator, real
// restored isolates.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "src/v8_compat.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-snapshot.h"

namespace asyncctx {
namespace test {
namespace {

std::string RunIn(v8::Local<v8::Context> context, const char* source) {
  v8::Isolate* isolate = compat::IsolateOf(context);
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

enum class SnapshotWith { kPlainContext, kInstalledContext };

// A snapshot whose default context ran `setup`. The snapshotting isolate
// has a Runtime with one installed context of its own (not in the snapshot);
// with kInstalledContext the snapshotted context is installed too.
v8::StartupData MakeSnapshot(SnapshotWith with, const char* setup) {
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  params.external_references = ExternalReferences();
  v8::Isolate* isolate = host::AllocateIsolate();
  v8::StartupData blob;
  {
    std::unique_ptr<v8::SnapshotCreator> creator =
        compat::NewSnapshotCreator(isolate, params);
    {
      v8::HandleScope handle_scope(isolate);
      isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
      RuntimeOptions options;
      options.platform = TestPlatform();
      std::unique_ptr<Runtime> runtime = Runtime::Create(isolate, options);
      v8::Local<v8::Context> other = v8::Context::New(isolate);
      EXPECT_TRUE(runtime->Install(other).FromMaybe(false));
      EXPECT_EQ("ok", RunIn(other,
                            "new AsyncLocalStorage().run(1, async () => {"
                            "  await null; }); 'ok'"));
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      EXPECT_EQ("ok", RunIn(context, setup));
      if (with == SnapshotWith::kInstalledContext) {
        EXPECT_TRUE(runtime->Install(context).FromMaybe(false));
        EXPECT_EQ("ok", RunIn(context,
                              "globalThis.als = new AsyncLocalStorage();"
                              "als.enterWith('stale'); 'ok'"));
      }
      runtime->RunMicrotasks(other);
      creator->SetDefaultContext(context);
      fprintf(stderr, "[exp] before runtime reset\n");
    }
    fprintf(stderr, "[exp] CreateBlob\n");
    blob =
        creator->CreateBlob(v8::SnapshotCreator::FunctionCodeHandling::kClear);
    fprintf(stderr, "[exp] blob %d bytes\n", blob.raw_size);
  }
  if (compat::kSnapshotCreatorDisposesIsolate) {
    host::ForgetIsolate(isolate);
  } else {
    host::DisposeIsolate(isolate);
  }
  return blob;
}

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

TEST(SnapshotExperiment, PlainContext) {
  v8::StartupData blob = MakeSnapshot(
      SnapshotWith::kPlainContext,
      "globalThis.fromSnapshot = 42;"
      "globalThis.later = async (v) => { await null; return v; }; 'ok'");
  {
    RestoredIsolate restored(&blob);
    v8::Isolate::Scope isolate_scope(restored.isolate());
    v8::HandleScope handle_scope(restored.isolate());
    v8::Local<v8::Context> context = v8::Context::New(restored.isolate());
    EXPECT_EQ("42", RunIn(context, "String(fromSnapshot)"));
    EXPECT_FALSE(restored.runtime()->IsInstalled(context));
    EXPECT_TRUE(restored.runtime()->Install(context).FromMaybe(false));
    EXPECT_EQ("ok", RunIn(context,
                          "globalThis.seen = [];"
                          "const als = new AsyncLocalStorage();"
                          "als.run('a', async () => {"
                          "  await later(1); seen.push(als.getStore()); });"
                          "als.run('b', async () => {"
                          "  await null; seen.push(als.getStore()); });"
                          "'ok'"));
    restored.runtime()->RunMicrotasks(context);
    EXPECT_EQ("b,a", RunIn(context, "seen.join()"));
  }
  delete[] blob.data;
}

TEST(SnapshotExperiment, InstalledContext) {
  v8::StartupData blob = MakeSnapshot(SnapshotWith::kInstalledContext,
                                      "globalThis.fromSnapshot = 42; 'ok'");
  {
    RestoredIsolate restored(&blob);
    v8::Isolate::Scope isolate_scope(restored.isolate());
    v8::HandleScope handle_scope(restored.isolate());
    v8::Local<v8::Context> context = v8::Context::New(restored.isolate());
    fprintf(stderr, "[exp] restored; fields %d\n",
            context->GetNumberOfEmbedderDataFields());
    for (int i = 40; i < 43 && i < static_cast<int>(context->GetNumberOfEmbedderDataFields()); i++) {
      if (i == 40) {
        v8::Local<v8::Value> v = context->GetEmbedderData(i);
        fprintf(stderr, "[exp] slot 40 object=%d\n", v->IsObject());
      } else {
        fprintf(stderr, "[exp] slot %d = %p\n", i, compat::GetEmbedderPointer(context, i));
      }
    }
    fprintf(stderr, "[exp] installed=%d\n", restored.runtime()->IsInstalled(context));
    fprintf(stderr, "[exp] %s\n", RunIn(context, "typeof als + ' ' + (() => { try { return String(als.getStore()); } catch (e) { return 'threw ' + e.message; } })()").c_str());
    fprintf(stderr, "[exp] %s\n", RunIn(context, "(() => { try { return String(als.run(2, () => als.getStore())); } catch (e) { return 'threw ' + e.message; } })()").c_str());
    v8::TryCatch try_catch(restored.isolate());
    bool ok = restored.runtime()->Install(context).FromMaybe(false);
    fprintf(stderr, "[exp] install=%d\n", ok);
    if (try_catch.HasCaught()) {
      v8::String::Utf8Value e(restored.isolate(), try_catch.Exception());
      fprintf(stderr, "[exp] install threw %s\n", *e);
    }
  }
  delete[] blob.data;
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
