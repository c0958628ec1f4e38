// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Conversions between C++ strings and V8 strings, shared by the files that
// talk to the JavaScript layer.

#ifndef ASYNCCTX_SRC_V8_STRING_H_
#define ASYNCCTX_SRC_V8_STRING_H_

#include <string>

#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace internal {

// An internalized V8 string for a short ASCII literal (a property name).
inline v8::Local<v8::String> Str(v8::Isolate* isolate, const char* s) {
  return v8::String::NewFromUtf8(isolate, s, v8::NewStringType::kInternalized)
      .ToLocalChecked();
}

// `value` converted with ToString (never throws: "<unprintable>" if that
// fails).
inline std::string ToStdString(v8::Isolate* isolate,
                               v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 != nullptr ? std::string(*utf8, utf8.length())
                          : std::string("<unprintable>");
}

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_V8_STRING_H_
