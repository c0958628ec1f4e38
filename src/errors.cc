// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/errors.h"

#include <cstdio>
#include <cstdlib>

#include <string>

#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "v8-exception.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace internal {

void ThrowError(v8::Isolate* isolate, const char* message) {
  v8::Local<v8::String> text;
  if (!v8::String::NewFromUtf8(isolate, message).ToLocal(&text))
    return;
  isolate->ThrowException(v8::Exception::Error(text));
}

void DefaultFatalErrorHandler(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

void FatalUsage(const char* api, const char* problem, v8::Isolate* isolate) {
  std::string message = std::string("asyncctx: fatal: ") + api + ": " + problem;
  if (isolate == nullptr)
    isolate = v8::Isolate::TryGetCurrent();
  const RuntimeImpl* runtime =
      isolate != nullptr ? RuntimeRegistry::Find(isolate) : nullptr;
  if (runtime != nullptr && runtime->options().on_fatal_error) {
    runtime->options().on_fatal_error(message);
  } else {
    DefaultFatalErrorHandler(message);
  }
  // The host's handler returned: nothing can continue safely.
  std::abort();
}

}  // namespace internal
}  // namespace asyncctx
