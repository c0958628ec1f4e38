// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Small helpers shared by the shell's JavaScript bindings: string conversion
// and attaching native functions to objects.

#ifndef TOOLS_SHELL_BINDINGS_H_
#define TOOLS_SHELL_BINDINGS_H_

#include <string>
#include <string_view>

#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-local-handle.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {

// A V8 string from UTF-8. Falls back to the empty string if `text` is longer
// than V8's maximum string length, which only a pathological input reaches.
v8::Local<v8::String> ToV8String(v8::Isolate* isolate, std::string_view text);

// The UTF-8 form of `value` converted with ToString(); the empty string if
// that throws (the exception is left pending for the caller's TryCatch).
// Symbols are not converted by ToString(), so they come back empty as well.
std::string ToUtf8(v8::Isolate* isolate, v8::Local<v8::Value> value);

// Defines `name` on `target` as a native function that cannot be used as a
// constructor. Globals are defined non-enumerable, like the web platform's.
bool SetFunction(v8::Local<v8::Context> context,
                 v8::Local<v8::Object> target,
                 const char* name,
                 v8::FunctionCallback callback,
                 v8::Local<v8::Value> data = v8::Local<v8::Value>(),
                 v8::PropertyAttribute attributes = v8::None);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_BINDINGS_H_
