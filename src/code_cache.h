// Copyright 2026 the asyncctx authors. All rights reserved.
//
// A process-wide V8 code cache of the JavaScript layer.
//
// The first Install() of the process compiles the layer from source, runs
// it, and then serializes the compiled script (with the functions compiled
// while it ran) with v8::ScriptCompiler::CreateCodeCache. Every later
// Install(), in any isolate and on any thread, compiles with those bytes
// (kConsumeCodeCache). A code cache is bytes, not shared heap objects: each
// isolate deserializes its own copy. V8 accepts it only from the same V8
// build with the same flags; when it rejects the cache (the flags changed,
// or the bytes are damaged), it compiles from source instead, and the cache
// is dropped and made again from that compilation.

#ifndef ASYNCCTX_SRC_CODE_CACHE_H_
#define ASYNCCTX_SRC_CODE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "v8-local-handle.h"
#include "v8-maybe.h"
#include "v8-script.h"

namespace asyncctx {
namespace internal {

// The bytes of one code cache, shared read-only between the isolates that
// compile with it.
using CodeCacheBytes = std::shared_ptr<const std::string>;

// A compilation of the layer, with what is needed to produce the cache once
// the script has run.
class LayerCompilation {
 public:
  // Compiles the layer's `source` in `context` (its current context), with
  // the process-wide cache if there is one and `use_cache` is true.
  static v8::MaybeLocal<v8::Script> Compile(v8::Local<v8::Context> context,
                                            v8::Local<v8::String> source,
                                            const v8::ScriptOrigin& origin,
                                            bool use_cache,
                                            LayerCompilation* out);

  // After the script ran without an exception: makes the process-wide cache
  // from `script` if this compilation did not consume an accepted one.
  void ProduceIfNeeded(v8::Local<v8::Script> script);

 private:
  bool use_cache_ = false;
  bool consumed_ = false;
};

// Counters and state of the process-wide cache, for tests and benchmarks.
struct LayerCodeCacheStats {
  size_t produced = 0;  // caches made (CreateCodeCache)
  size_t consumed = 0;  // compilations with a cache V8 accepted
  size_t rejected = 0;  // compilations with a cache V8 rejected
  size_t bytes = 0;     // size of the current cache; 0 if there is none
};

LayerCodeCacheStats GetLayerCodeCacheStats();

// Replaces the current cache (nullptr: none; the next Install() compiles
// from source and makes one).
void SetLayerCodeCache(CodeCacheBytes bytes);

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_CODE_CACHE_H_
