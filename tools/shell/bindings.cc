// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/bindings.h"

#include "tools/v8_host/v8_host_compat.h"
#include "v8-function.h"
#include "v8-isolate.h"

namespace asyncctx {
namespace shell {

v8::Local<v8::String> ToV8String(v8::Isolate* isolate, std::string_view text) {
  v8::Local<v8::String> result;
  if (text.size() > static_cast<size_t>(v8::String::kMaxLength) ||
      !v8::String::NewFromUtf8(isolate, text.data(), v8::NewStringType::kNormal,
                               static_cast<int>(text.size()))
           .ToLocal(&result)) {
    return v8::String::Empty(isolate);
  }
  return result;
}

std::string ToUtf8(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  if (value.IsEmpty() || value->IsSymbol())
    return std::string();
  v8::String::Utf8Value utf8(isolate, value);
  if (*utf8 == nullptr)
    return std::string();
  return std::string(*utf8, utf8.length());
}

bool SetFunction(v8::Local<v8::Context> context,
                 v8::Local<v8::Object> target,
                 const char* name,
                 v8::FunctionCallback callback,
                 v8::Local<v8::Value> data,
                 v8::PropertyAttribute attributes) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Function> function;
  if (!v8::Function::New(context, callback, data, 0,
                         v8::ConstructorBehavior::kThrow)
           .ToLocal(&function)) {
    return false;
  }
  v8::Local<v8::String> key = ToV8String(isolate, name);
  function->SetName(key);
  return target->DefineOwnProperty(context, key, function, attributes)
      .FromMaybe(false);
}

}  // namespace shell
}  // namespace asyncctx
