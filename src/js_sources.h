// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The embedded JavaScript layer (src/js/*.js, turned into C++ by js2c.py).

#ifndef ASYNCCTX_SRC_JS_SOURCES_H_
#define ASYNCCTX_SRC_JS_SOURCES_H_

#include <cstddef>

namespace asyncctx {
namespace internal {

extern const char kAsyncctxSource[];
extern const size_t kAsyncctxSourceLength;

// The script name of the JavaScript layer (in stacks and messages).
inline constexpr char kAsyncctxScriptName[] = "asyncctx:internal/asyncctx.js";

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_JS_SOURCES_H_
