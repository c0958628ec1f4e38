// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/errors.h"

#include <string>

#include "asyncctx/errors.h"

#include "tools/shell/bindings.h"
#include "tools/shell/inspect/inspect.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-object.h"

namespace asyncctx {
namespace shell {
void ThrowInvalidArgType(v8::Local<v8::Context> context,
                         const char* name,
                         const char* expected,
                         v8::Local<v8::Value> actual) {
  // One implementation of Node's wording for the library and the shell.
  asyncctx::ThrowInvalidArgType(context, name, expected, actual);
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
