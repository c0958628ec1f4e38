// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Errors thrown by the shell's globals, worded like Node.js's so that code
// checking `err.code` or the message works in both.

#ifndef TOOLS_SHELL_ERRORS_H_
#define TOOLS_SHELL_ERRORS_H_

#include <string>

#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-value.h"

namespace asyncctx {
namespace shell {

// Throws `TypeError [ERR_INVALID_ARG_TYPE]: The "<name>" argument must be of
// type <expected>. Received <description of actual>`, with `code` set.
void ThrowInvalidArgType(v8::Local<v8::Context> context,
                         const char* name,
                         const char* expected,
                         v8::Local<v8::Value> actual);

// Throws a plain TypeError (e.g. "Illegal invocation").
void ThrowTypeError(v8::Isolate* isolate, const std::string& message);

// Throws an Error with `message`.
void ThrowError(v8::Isolate* isolate, const std::string& message);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_ERRORS_H_
