// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/script.h"

#include <cstdio>
#include <utility>

#include "asyncctx/errors.h"
#include "asyncctx/module.h"
#include "tools/shell/bindings.h"
#include "tools/shell/errors.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-isolate.h"
#include "v8-message.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace shell {
namespace {

void Load(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info[0]->IsString()) {
    ThrowInvalidArgType(context, "path", "string", info[0]);
    return;
  }
  std::string path = ToUtf8(isolate, info[0]);
  std::string source;
  if (!ReadFile(path, &source)) {
    ThrowError(isolate, "Error loading file: " + path);
    return;
  }
  // An exception stays pending and propagates to load()'s caller.
  RunScript(context, path, source);
}

// require(id): the built-ins asyncctx provides (async_hooks,
// diagnostics_channel, with or without `node:`), the same objects as their
// modules; Node's ERR_UNKNOWN_BUILTIN_MODULE for any other id. For bundled
// CommonJS, whose bundler turns require('async_hooks') into a call of the
// `require` in scope.
void Require(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info[0]->IsString()) {
    ThrowInvalidArgType(context, "id", "string", info[0]);
    return;
  }
  if (info[0].As<v8::String>()->Length() == 0) {
    v8::Local<v8::Object> error;
    if (MakeNodeError(context, ErrorType::kTypeError, "ERR_INVALID_ARG_VALUE",
                      "The argument 'id' must be a non-empty string. "
                      "Received ''")
            .ToLocal(&error)) {
      isolate->ThrowException(error);
    }
    return;
  }
  v8::Local<v8::Object> exports;
  if (GetBuiltinModuleExports(context, ToUtf8(isolate, info[0]))
          .ToLocal(&exports)) {
    info.GetReturnValue().Set(exports);
  }
}

}  // namespace

bool ReadFile(const std::string& path, std::string* contents) {
  FILE* file = fopen(path.c_str(), "rb");
  if (file == nullptr)
    return false;
  std::string data;
  char buffer[1 << 16];
  size_t read;
  while ((read = fread(buffer, 1, sizeof(buffer), file)) > 0)
    data.append(buffer, read);
  // Reading a directory fails here (EISDIR) although fopen() succeeded.
  bool ok = ferror(file) == 0;
  fclose(file);
  if (ok)
    *contents = std::move(data);
  return ok;
}

v8::MaybeLocal<v8::Value> RunScript(v8::Local<v8::Context> context,
                                    const std::string& name,
                                    const std::string& source) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::String> code;
  if (source.size() > static_cast<size_t>(v8::String::kMaxLength) ||
      !v8::String::NewFromUtf8(isolate, source.data(),
                               v8::NewStringType::kNormal,
                               static_cast<int>(source.size()))
           .ToLocal(&code)) {
    ThrowError(isolate, "Script too large: " + name);
    return v8::MaybeLocal<v8::Value>();
  }
  v8::ScriptOrigin origin =
      host_compat::MakeScriptOrigin(isolate, ToV8String(isolate, name));
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> result;
  if (!v8::Script::Compile(context, code, &origin).ToLocal(&script) ||
      !script->Run(context).ToLocal(&result)) {
    return v8::MaybeLocal<v8::Value>();
  }
  return handle_scope.Escape(result);
}

bool InstallLoad(v8::Local<v8::Context> context) {
  return SetFunction(context, context->Global(), "load", Load,
                     v8::Local<v8::Value>(), v8::DontEnum) &&
         SetFunction(context, context->Global(), "require", Require,
                     v8::Local<v8::Value>(), v8::DontEnum);
}

}  // namespace shell
}  // namespace asyncctx
