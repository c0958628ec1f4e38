// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The `performance` global: `performance.now()` returns milliseconds since
// the shell started as a double with sub-microsecond resolution, from a
// monotonic clock, and `performance.timeOrigin` is the wall-clock time of
// that start, as in browsers, Node.js and Deno, so benchmark files run
// unchanged in all of them.

#ifndef TOOLS_SHELL_PERFORMANCE_H_
#define TOOLS_SHELL_PERFORMANCE_H_

#include <chrono>

#include "v8-context.h"
#include "v8-local-handle.h"

namespace asyncctx {
namespace shell {

struct TimeOrigin {
  std::chrono::steady_clock::time_point monotonic =
      std::chrono::steady_clock::now();
  std::chrono::system_clock::time_point wall = std::chrono::system_clock::now();
};

// `origin` must outlive the context.
bool InstallPerformance(v8::Local<v8::Context> context,
                        const TimeOrigin* origin);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_PERFORMANCE_H_
