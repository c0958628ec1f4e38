// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/code_cache.h"

#include <atomic>
#include <mutex>
#include <utility>

namespace asyncctx {
namespace internal {

namespace {

// std::mutex rather than absl::Mutex: TSan models it without annotations.
std::mutex g_mutex;
CodeCacheBytes g_bytes;  // guarded by g_mutex
std::atomic<size_t> g_produced{0};
std::atomic<size_t> g_consumed{0};
std::atomic<size_t> g_rejected{0};

CodeCacheBytes CurrentBytes() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_bytes;
}

}  // namespace

v8::MaybeLocal<v8::Script> LayerCompilation::Compile(
    v8::Local<v8::Context> context,
    v8::Local<v8::String> source,
    const v8::ScriptOrigin& origin,
    bool use_cache,
    LayerCompilation* out) {
  *out = LayerCompilation();
  out->use_cache_ = use_cache;
  CodeCacheBytes bytes = use_cache ? CurrentBytes() : nullptr;
  if (bytes == nullptr) {
    v8::ScriptCompiler::Source script_source(source, origin);
    return v8::ScriptCompiler::Compile(context, &script_source);
  }
  // `bytes` outlives the compilation, which reads the buffer without owning
  // it; Source owns the CachedData object.
  v8::ScriptCompiler::Source script_source(
      source, origin,
      new v8::ScriptCompiler::CachedData(
          reinterpret_cast<const uint8_t*>(bytes->data()),
          static_cast<int>(bytes->size()),
          v8::ScriptCompiler::CachedData::BufferNotOwned));
  v8::MaybeLocal<v8::Script> script = v8::ScriptCompiler::Compile(
      context, &script_source, v8::ScriptCompiler::kConsumeCodeCache);
  const v8::ScriptCompiler::CachedData* used = script_source.GetCachedData();
  if (used != nullptr && used->rejected) {
    // Compiled from source. Drop the cache unless another install already
    // replaced it; ProduceIfNeeded makes the new one.
    g_rejected.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_bytes == bytes)
      g_bytes.reset();
  } else if (!script.IsEmpty()) {
    g_consumed.fetch_add(1, std::memory_order_relaxed);
    out->consumed_ = true;
  }
  return script;
}

void LayerCompilation::ProduceIfNeeded(v8::Local<v8::Script> script) {
  if (!use_cache_ || consumed_ || CurrentBytes() != nullptr)
    return;
  std::unique_ptr<v8::ScriptCompiler::CachedData> data(
      v8::ScriptCompiler::CreateCodeCache(script->GetUnboundScript()));
  if (data == nullptr || data->data == nullptr || data->length <= 0)
    return;
  auto bytes = std::make_shared<const std::string>(
      reinterpret_cast<const char*>(data->data),
      static_cast<size_t>(data->length));
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_bytes == nullptr) {
    g_bytes = std::move(bytes);
    g_produced.fetch_add(1, std::memory_order_relaxed);
  }
}

LayerCodeCacheStats GetLayerCodeCacheStats() {
  LayerCodeCacheStats stats;
  stats.produced = g_produced.load(std::memory_order_relaxed);
  stats.consumed = g_consumed.load(std::memory_order_relaxed);
  stats.rejected = g_rejected.load(std::memory_order_relaxed);
  CodeCacheBytes bytes = CurrentBytes();
  stats.bytes = bytes == nullptr ? 0 : bytes->size();
  return stats;
}

void SetLayerCodeCache(CodeCacheBytes bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_bytes = std::move(bytes);
}

}  // namespace internal
}  // namespace asyncctx
