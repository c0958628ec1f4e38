// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The embedded JavaScript layer: the modules of src/js, linked into one
// script by tools/js2c.py. Run, it evaluates to a function of the native
// binding that returns the layer (exports and internals).

#ifndef ASYNCCTX_SRC_JS_SOURCES_H_
#define ASYNCCTX_SRC_JS_SOURCES_H_

#include <cstddef>

#include "src/layer_contract.h"

namespace asyncctx {
namespace internal {

extern const char kAsyncctxSource[];
extern const size_t kAsyncctxSourceLength;

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_JS_SOURCES_H_
