// Copyright 2026 the asyncctx authors. All rights reserved.
//
// minimal_host: the smallest V8 embedder that uses asyncctx. It creates an
// isolate and its asyncctx::Runtime, installs the globals into a context,
// runs a script (the source text given on the command line, or the one below)
// and then the microtask checkpoint, in which the `await` continuation runs.
//
//   out/Default/minimal_host ['print(typeof AsyncLocalStorage)']

#include <cstdio>
#include <memory>
#include <utility>

#include "asyncctx/asyncctx.h"
#include "tools/v8_host/v8_host.h"
#include "v8.h"

const char kScript[] = R"js(
  const request = new AsyncLocalStorage();
  async function handle() {
    await null;
    print(`after await: ${request.getStore()}`);
  }
  request.run('request-1', handle);
  print(`outside run: ${request.getStore()}`);
)js";

static void Print(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::String::Utf8Value text(info.GetIsolate(), info[0]);
  printf("%s\n", *text ? *text : "<not a string>");
}

int main(int argc, char* argv[]) {
  const char* source = argc > 1 ? argv[1] : kScript;
  // V8 and its platform: with Debian's V8 10.2 this is
  // v8::platform::NewDefaultPlatform(), V8::InitializePlatform() and
  // V8::Initialize() (tools/v8_host/v8_host_libnode.cc); inside a node binary
  // it is Node's platform (tools/v8_host/v8_host_node.cc).
  v8::Platform* platform = asyncctx::host::InitializeV8(argv[0]);
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  v8::Isolate* isolate = asyncctx::host::NewIsolate(params);
  // asyncctx runs the checkpoints (CallbackScope, Runtime::RunMicrotasks).
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  int exit_code = 0;
  {
    v8::Isolate::Scope isolate_scope(isolate);
    asyncctx::RuntimeOptions options;
    options.platform = platform;  // for batched destroy hooks
    auto runtime = asyncctx::Runtime::Create(isolate, std::move(options));
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> context = v8::Context::New(isolate);
    v8::Context::Scope context_scope(context);
    context->Global()
        ->Set(context, v8::String::NewFromUtf8Literal(isolate, "print"),
              v8::Function::New(context, Print).ToLocalChecked())
        .Check();
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::String> code =
        v8::String::NewFromUtf8(isolate, source).ToLocalChecked();
    v8::Local<v8::Script> script;
    if (runtime->Install(context).IsNothing() ||
        !v8::Script::Compile(context, code).ToLocal(&script) ||
        script->Run(context).IsEmpty()) {
      v8::String::Utf8Value error(isolate, try_catch.Exception());
      fprintf(stderr, "uncaught %s\n", *error);
      exit_code = 1;
    }
    runtime->RunMicrotasks(context);
  }  // The runtime goes before the isolate.
  asyncctx::host::DisposeIsolate(isolate);
  asyncctx::host::ShutdownV8();
  return exit_code;
}
