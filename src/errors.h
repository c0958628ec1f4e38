// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The one place that builds errors. JavaScript-facing errors with Node.js's
// codes are created by the JavaScript layer (src/js/errors.js); these are
// the C++ side: exceptions thrown into JavaScript by the C++ API, and fatal
// messages for misuse that cannot be reported any other way.

#ifndef ASYNCCTX_SRC_ERRORS_H_
#define ASYNCCTX_SRC_ERRORS_H_

#include "v8-isolate.h"

namespace asyncctx {

// Throws a JavaScript Error with `message` in the isolate's current context.
void ThrowError(v8::Isolate* isolate, const char* message);

// Prints "asyncctx: fatal: <api>: <problem>" to stderr and aborts. For
// misuse of the C++ API that leaves no way to continue safely (no runtime,
// no installed context, no HandleScope).
[[noreturn]] void FatalUsage(const char* api, const char* problem);

}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_ERRORS_H_
