// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/bench_natives.h"

#include "tools/shell/bindings.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-object.h"
#include "v8-template.h"

namespace asyncctx {
namespace shell {

namespace {

void Empty(const v8::FunctionCallbackInfo<v8::Value>&) {}

void Enqueue(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (info[0]->IsFunction()) {
    info.GetIsolate()->EnqueueMicrotask(info[0].As<v8::Function>());
  }
}

}  // namespace

bool InstallBenchNatives(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Object> natives = v8::Object::New(isolate);
  v8::Local<v8::Function> constructor;
  if (!SetFunction(context, natives, "emptyFunction", Empty) ||
      !SetFunction(context, natives, "enqueueMicrotask", Enqueue) ||
      !v8::FunctionTemplate::New(isolate, Empty)
           ->GetFunction(context)
           .ToLocal(&constructor) ||
      natives
          ->Set(context, ToV8String(isolate, "EmptyConstructor"), constructor)
          .IsNothing()) {
    return false;
  }
  return context->Global()
      ->DefineOwnProperty(context, ToV8String(isolate, "benchNatives"), natives,
                          v8::DontEnum)
      .FromMaybe(false);
}

}  // namespace shell
}  // namespace asyncctx
