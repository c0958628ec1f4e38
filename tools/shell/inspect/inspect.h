// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Inspect(): a C++ port of the common cases of Node.js's util.inspect(), so
// that console.log output and error messages look the way a Node.js user
// expects: `[ 1, 2, 3 ]`, `{ a: 1, b: 'x' }`, `Map(1) { 'a' => 1 }`,
// `[Function: f]`, `[class A extends B]`, errors as their stack, nesting
// beyond `depth` as `[Object]`, cycles as `<ref *1>` / `[Circular *1]`, and
// Node's line breaking (80 columns, up to 3 inner levels on one line, long
// arrays grouped in columns).
//
// Left out on purpose: colors, showHidden, getters, util.inspect.custom,
// sorting and the other options; a Proxy is shown as its target, without
// running any trap, as Node does by default.
//
// Formatting can run JavaScript (toStringTag and accessor reads on Error
// objects, Symbol.hasInstance when finding a constructor name); if that
// throws, Inspect() returns Nothing and the exception is pending.

#ifndef TOOLS_SHELL_INSPECT_INSPECT_H_
#define TOOLS_SHELL_INSPECT_INSPECT_H_

#include <string>

#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-maybe.h"
#include "v8-value.h"

namespace asyncctx {
namespace shell {

struct InspectOptions {
  // How many levels of nested objects to show; deeper ones print as
  // `[Object]`. -1 shows only the top level's type.
  int depth = 2;
  // Also list non-enumerable own properties, as `[name]: value` (console's
  // %o).
  bool show_hidden = false;
};

v8::Maybe<std::string> Inspect(v8::Local<v8::Context> context,
                               v8::Local<v8::Value> value,
                               const InspectOptions& options = {});

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_INSPECT_INSPECT_H_
