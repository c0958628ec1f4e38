// Copyright 2026 the asyncctx authors. All rights reserved.
//
// A program built outside asyncctx's source tree, against an installed
// asyncctx (test/install/run_test.py builds it with CMake and with
// pkg-config). It touches every public header: InstallOptions, the runtime,
// an AsyncResource run with CallbackScope and MakeCallback, ContextKeys
// native and wrapped, and Node's argument errors.

#include <asyncctx/asyncctx.h>
#include <libplatform/libplatform.h>
#include <v8.h>

#include <cstdio>
#include <memory>
#include <utility>

namespace {

const char kScript[] = R"js(
  print(`AsyncContext global: ${typeof AsyncContext}`);
  try { startTask(1); } catch (e) { print(`startTask(1): ${e.code}`); }
  globalThis.als = new AsyncLocalStorage();
  als.run('request-7', async () => {
    startTask(() => print(`store in MakeCallback: ${als.getStore()}`));
    await null;
    print(`store after await: ${als.getStore()}`);
  });
)js";

std::unique_ptr<asyncctx::AsyncResource> task;
v8::Global<v8::Function> task_callback;

void Print(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::String::Utf8Value text(info.GetIsolate(), info[0]);
  printf("%s\n", *text);
}

// startTask(callback): host work that completes later, in the caller's
// context.
void StartTask(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (!info[0]->IsFunction()) {
    asyncctx::ThrowInvalidArgType(isolate->GetCurrentContext(), "callback",
                                  "function", info[0]);
    return;
  }
  task = std::make_unique<asyncctx::AsyncResource>(isolate->GetCurrentContext(),
                                                   "ConsumerTask");
  task_callback.Reset(isolate, info[0].As<v8::Function>());
}

v8::Local<v8::String> String(v8::Isolate* isolate, const char* text) {
  return v8::String::NewFromUtf8(isolate, text).ToLocalChecked();
}

int Run(v8::Isolate* isolate, v8::Platform* platform) {
  asyncctx::RuntimeOptions options;
  options.platform = platform;
  std::unique_ptr<asyncctx::Runtime> runtime =
      asyncctx::Runtime::Create(isolate, std::move(options));
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = v8::Context::New(isolate);
  v8::Context::Scope context_scope(context);
  asyncctx::InstallOptions install;
  install.async_context = "";  // leave AsyncContext out
  if (runtime->Install(context, install).IsNothing())
    return 1;
  v8::Local<v8::Object> global = context->Global();
  global
      ->Set(context, String(isolate, "print"),
            v8::Function::New(context, Print).ToLocalChecked())
      .Check();
  global
      ->Set(context, String(isolate, "startTask"),
            v8::Function::New(context, StartTask).ToLocalChecked())
      .Check();

  asyncctx::ContextKey tenant(context, "tenant");
  {
    asyncctx::ContextKey::Scope scope(tenant, context,
                                      v8::Number::New(isolate, 42));
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::Script> script;
    if (!v8::Script::Compile(context, String(isolate, kScript))
             .ToLocal(&script) ||
        script->Run(context).IsEmpty()) {
      v8::String::Utf8Value error(isolate, try_catch.Exception());
      fprintf(stderr, "uncaught %s\n", *error);
      return 1;
    }
  }
  runtime->RunMicrotasks(context);
  if (!task)
    return 1;

  std::unique_ptr<asyncctx::ContextKey> als =
      asyncctx::ContextKey::FromJavaScript(
          context,
          global->Get(context, String(isolate, "als")).ToLocalChecked());
  {
    asyncctx::CallbackScope scope(task.get());
    v8::String::Utf8Value value(isolate, tenant.Get(context).ToLocalChecked());
    v8::String::Utf8Value store(isolate, als->Get(context).ToLocalChecked());
    printf("native key in host callback: %s\n", *value);
    printf("store read from C++: %s\n", *store);
  }
  asyncctx::MakeCallback(task.get(), v8::Undefined(isolate),
                         task_callback.Get(isolate), 0, nullptr);
  printf("native key outside: %s\n", tenant.Has(context) ? "set" : "unset");
  task.reset();
  task_callback.Reset();
  als.reset();
  return 0;
}

}  // namespace

int main(int, char* argv[]) {
  printf("asyncctx %s\n", ASYNCCTX_VERSION_STRING);
  v8::V8::InitializeICUDefaultLocation(argv[0]);
  std::unique_ptr<v8::Platform> platform = v8::platform::NewDefaultPlatform();
  v8::V8::InitializePlatform(platform.get());
  v8::V8::Initialize();
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  v8::Isolate* isolate = v8::Isolate::New(params);
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  int exit_code;
  {
    v8::Isolate::Scope isolate_scope(isolate);
    exit_code = Run(isolate, platform.get());
  }
  isolate->Dispose();
  v8::V8::Dispose();
  v8::V8::DisposePlatform();
  return exit_code;
}
