// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Running script files: the files named on the command line and `load(path)`,
// which runs another file in the same context, as d8's load() does. Scripts
// are classic scripts whose origin is the path as given, so stacks and error
// reports show `path:line:column`.

#ifndef TOOLS_SHELL_SCRIPT_H_
#define TOOLS_SHELL_SCRIPT_H_

#include <string>

#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-value.h"

namespace asyncctx {
namespace shell {

// Reads the whole file at `path`. Returns false if it cannot be read.
bool ReadFile(const std::string& path, std::string* contents);

// Compiles and runs `source` as a classic script named `name`. On a syntax
// error or an exception the result is empty and the exception is pending.
v8::MaybeLocal<v8::Value> RunScript(v8::Local<v8::Context> context,
                                    const std::string& name,
                                    const std::string& source);

// Defines the global `load(path)`. It throws if the file cannot be read, and
// lets the script's own exceptions propagate to the caller. Also defines
// `require(id)` for the built-in modules (async_hooks, diagnostics_channel,
// with or without `node:`): the objects of GetBuiltinModuleExports(), and
// Node's ERR_UNKNOWN_BUILTIN_MODULE for any other id.
bool InstallLoad(v8::Local<v8::Context> context);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_SCRIPT_H_
