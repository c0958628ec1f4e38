// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The one place that builds errors. JavaScript-facing errors with Node.js's
// codes are created by the JavaScript layer (src/js/errors.js); these are
// the C++ side: exceptions thrown into JavaScript by the C++ API, and fatal
// messages for misuse that cannot be reported any other way.

#ifndef ASYNCCTX_SRC_ERRORS_H_
#define ASYNCCTX_SRC_ERRORS_H_

#include <string>

#include "v8-isolate.h"

namespace asyncctx {
namespace internal {

// The default fatal-error handler: prints `message` to stderr and aborts.
[[noreturn]] void DefaultFatalErrorHandler(const std::string& message);

// Throws a JavaScript Error with `message` in the isolate's current context.
void ThrowError(v8::Isolate* isolate, const char* message);

// Reports "asyncctx: fatal: <api>: <problem>" through the fatal-error
// handler of `isolate`'s runtime (RuntimeOptions::on_fatal_error), or when
// there is none, prints it to stderr; then aborts if the handler returned.
// For misuse of the C++ API or broken invariants that leave no way to
// continue safely (no runtime, no installed context, stack corruption).
// `isolate` may be null (then the current isolate's runtime is asked).
[[noreturn]] void FatalUsage(const char* api,
                             const char* problem,
                             v8::Isolate* isolate = nullptr);

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_ERRORS_H_
