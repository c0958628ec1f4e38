// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/errors.h"

#include <cstdio>
#include <cstdlib>

#include "v8-exception.h"
#include "v8-primitive.h"

namespace asyncctx {

void ThrowError(v8::Isolate* isolate, const char* message) {
  v8::Local<v8::String> text;
  if (!v8::String::NewFromUtf8(isolate, message).ToLocal(&text)) return;
  isolate->ThrowException(v8::Exception::Error(text));
}

void FatalUsage(const char* api, const char* problem) {
  std::fprintf(stderr, "asyncctx: fatal: %s: %s\n", api, problem);
  std::fflush(stderr);
  std::abort();
}

}  // namespace asyncctx
