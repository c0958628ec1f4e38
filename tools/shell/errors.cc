// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/errors.h"

#include <string>

#include "tools/shell/bindings.h"
#include "tools/shell/inspect.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-object.h"

namespace asyncctx {
namespace shell {
namespace {

// Node's determineSpecificType: "undefined", "function f",
// "an instance of Foo", "type string ('abc')".
std::string DescribeReceived(v8::Local<v8::Context> context,
                             v8::Local<v8::Value> value) {
  v8::Isolate* isolate = context->GetIsolate();
  if (value->IsNullOrUndefined())
    return value->IsNull() ? "null" : "undefined";
  if (value->IsFunction()) {
    std::string name = ToUtf8(isolate, value.As<v8::Function>()->GetName());
    if (!name.empty())
      return "function " + name;
  }
  if (value->IsObject() && !value->IsFunction()) {
    v8::Local<v8::Value> constructor;
    v8::Local<v8::Value> name;
    if (value.As<v8::Object>()
            ->Get(context, ToV8String(isolate, "constructor"))
            .ToLocal(&constructor) &&
        constructor->IsObject() &&
        constructor.As<v8::Object>()
            ->Get(context, ToV8String(isolate, "name"))
            .ToLocal(&name) &&
        name->IsString() && name.As<v8::String>()->Length() > 0) {
      return "an instance of " + ToUtf8(isolate, name);
    }
    return Inspect(context, value, InspectOptions{-1}).FromMaybe("");
  }
  std::string inspected;
  if (value->IsString() && value.As<v8::String>()->Length() > 28) {
    // A long string is cut before quoting, so the quotes stay balanced.
    std::u16string text(25, u'\0');
    value.As<v8::String>()->Write(isolate,
                                  reinterpret_cast<uint16_t*>(&text[0]), 0, 25);
    text += u"...";
    v8::Local<v8::String> cut;
    if (v8::String::NewFromTwoByte(
            isolate, reinterpret_cast<const uint16_t*>(text.data()),
            v8::NewStringType::kNormal, static_cast<int>(text.size()))
            .ToLocal(&cut)) {
      inspected = Inspect(context, cut).FromMaybe("");
    }
  } else {
    inspected = Inspect(context, value).FromMaybe("");
    if (inspected.size() > 28)
      inspected = inspected.substr(0, 25) + "...";
  }
  v8::Local<v8::String> type = value->TypeOf(isolate);
  return "type " + ToUtf8(isolate, type) + " (" + inspected + ")";
}

}  // namespace

void ThrowInvalidArgType(v8::Local<v8::Context> context,
                         const char* name,
                         const char* expected,
                         v8::Local<v8::Value> actual) {
  v8::Isolate* isolate = context->GetIsolate();
  std::string received;
  {
    // Describing the value may run getters; their exceptions must not
    // replace the TypeError being built.
    v8::TryCatch try_catch(isolate);
    received = DescribeReceived(context, actual);
  }
  std::string message = std::string("The \"") + name +
                        "\" argument must be of type " + expected +
                        ". Received " + received;
  v8::Local<v8::Value> error =
      v8::Exception::TypeError(ToV8String(isolate, message));
  v8::Local<v8::Object> object = error.As<v8::Object>();
  const char* code = "ERR_INVALID_ARG_TYPE";
  // Node's stacks name the code: `TypeError [ERR_INVALID_ARG_TYPE]: ...`.
  v8::Local<v8::Value> stack;
  v8::Local<v8::String> stack_key = ToV8String(isolate, "stack");
  if (object->Get(context, stack_key).ToLocal(&stack) && stack->IsString()) {
    std::string text = ToUtf8(isolate, stack);
    const std::string plain = "TypeError: ";
    if (text.compare(0, plain.size(), plain) == 0) {
      text =
          "TypeError [" + std::string(code) + "]: " + text.substr(plain.size());
      if (object->Set(context, stack_key, ToV8String(isolate, text))
              .IsNothing()) {
        return;  // Only when terminating.
      }
    }
  }
  if (object
          ->Set(context, ToV8String(isolate, "code"), ToV8String(isolate, code))
          .IsNothing()) {
    return;
  }
  isolate->ThrowException(error);
}

void ThrowTypeError(v8::Isolate* isolate, const std::string& message) {
  isolate->ThrowException(
      v8::Exception::TypeError(ToV8String(isolate, message)));
}

void ThrowError(v8::Isolate* isolate, const std::string& message) {
  isolate->ThrowException(v8::Exception::Error(ToV8String(isolate, message)));
}

}  // namespace shell
}  // namespace asyncctx
