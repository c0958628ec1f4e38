// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The `console` global: log, info and debug write to stdout, warn and error
// to stderr, dir prints one inspected value. Arguments are formatted like
// Node.js's util.format(): a leading string may hold %s %d %i %f %j %o %O %c
// and %% placeholders; other strings print as they are, everything else
// through Inspect().

#ifndef TOOLS_SHELL_INSPECT_CONSOLE_H_
#define TOOLS_SHELL_INSPECT_CONSOLE_H_

#include <string>

#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-local-handle.h"
#include "v8-maybe.h"

namespace asyncctx {
namespace shell {

// What the console asks of its host (the shell's ErrorReporter).
class ConsoleHost {
 public:
  // False once the program is ending on a fatal error: Node would have
  // exited already, so the console prints nothing more.
  virtual bool OutputEnabled() const = 0;

 protected:
  ~ConsoleHost() = default;
};

// Defines `console` on the context's global object. `host` must outlive the
// context.
bool InstallConsole(v8::Local<v8::Context> context, const ConsoleHost* host);

// util.format() of the call's arguments. Nothing when formatting threw.
v8::Maybe<std::string> FormatArguments(
    const v8::FunctionCallbackInfo<v8::Value>& info);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_INSPECT_CONSOLE_H_
