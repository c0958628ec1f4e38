// Copyright 2026 the asyncctx authors. All rights reserved.
//
// A Node addon for test/isolated_vm/suite.js only (run_tests.py compiles
// it): reaches the isolated-vm module's InitForContext() in Node's own
// context, which isolated-vm's API never does, so the suite can check that
// install() refuses an isolate isolated-vm does not own.
//
//   initInNodeContext(binaryPath) -> the object InitForContext() filled

#include <dlfcn.h>

#include "node.h"

namespace {

using InitForContextFn = void (*)(v8::Isolate*,
                                  v8::Local<v8::Context>,
                                  v8::Local<v8::Object>);

void InitInNodeContext(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (info.Length() < 1 || !info[0]->IsString()) {
    isolate->ThrowError("initInNodeContext(binaryPath)");
    return;
  }
  v8::String::Utf8Value path(isolate, info[0]);
  // The module is loaded already (require()): this only finds its handle.
  void* handle = dlopen(*path, RTLD_NOW | RTLD_NOLOAD);
  void* symbol = handle == nullptr ? nullptr : dlsym(handle, "InitForContext");
  if (symbol == nullptr) {
    isolate->ThrowError("InitForContext not found (require() the module)");
    return;
  }
  v8::Local<v8::Object> target = v8::Object::New(isolate);
  reinterpret_cast<InitForContextFn>(symbol)(isolate, context, target);
  dlclose(handle);
  info.GetReturnValue().Set(target);
}

}  // namespace

NODE_MODULE_INIT(/* exports, module, context */) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::Local<v8::Function> fn;
  if (!v8::Function::New(context, InitInNodeContext).ToLocal(&fn))
    return;
  exports
      ->Set(context,
            v8::String::NewFromUtf8Literal(isolate, "initInNodeContext"), fn)
      .Check();
}
