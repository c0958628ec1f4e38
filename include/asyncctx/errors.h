// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Node.js-compatible errors for host bindings.
//
// A host that adds its own globals next to asyncctx's (timers, I/O) should
// throw the same errors Node.js does, so that code written for Node keeps
// working: a TypeError or RangeError with a `code` property and Node's
// message wording. These helpers build exactly the errors asyncctx's own
// JavaScript entry points throw (one implementation for both).
//
//   if (!info[0]->IsFunction()) {
//     asyncctx::ThrowInvalidArgType(context, "callback", "function", info[0]);
//     return;
//   }

#ifndef ASYNCCTX_ERRORS_H_
#define ASYNCCTX_ERRORS_H_

#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-object.h"
#include "v8-value.h"

namespace asyncctx {

// The constructor of the error MakeNodeError() creates.
enum class ErrorType { kError, kTypeError, kRangeError };

// Creates an error of `type` whose message is `message` and whose `code`
// property is `code` (e.g. "ERR_INVALID_ARG_VALUE"). `context` must be
// installed. Empty only if the isolate is terminating.
ASYNCCTX_EXPORT v8::MaybeLocal<v8::Object> MakeNodeError(
    v8::Local<v8::Context> context,
    ErrorType type,
    const char* code,
    const char* message);

// Throws Node's ERR_INVALID_ARG_TYPE TypeError:
//   The "<name>" argument must be of type <expected>. Received ...
// where the received part describes `actual` as Node does. `context` must be
// installed.
ASYNCCTX_EXPORT void ThrowInvalidArgType(v8::Local<v8::Context> context,
                                         const char* name,
                                         const char* expected,
                                         v8::Local<v8::Value> actual);

}  // namespace asyncctx

#endif  // ASYNCCTX_ERRORS_H_
