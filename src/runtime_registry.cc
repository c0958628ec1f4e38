// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/runtime_registry.h"

#include <atomic>
#include <cstdint>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "src/errors.h"
#include "src/runtime_impl.h"

namespace asyncctx {
namespace internal {

namespace {

// std::mutex rather than absl::Mutex: the Abseil we link is Debian's, built
// without ThreadSanitizer's annotations, so TSan would not see its locking.
struct Registry {
  std::mutex mutex;
  absl::flat_hash_map<v8::Isolate*, RuntimeImpl*> runtimes
      ABSL_GUARDED_BY(mutex);
};

Registry& TheRegistry() {
  // Never destroyed: runtimes may outlive static destructors.
  static Registry* const registry = new Registry;
  return *registry;
}

// Bumped (under the registry's mutex) whenever a runtime is added or
// removed: a thread's cached answer is valid only for the epoch it was read
// in. Starts at 1 so that the empty cache (epoch 0) never matches.
std::atomic<uint64_t> g_epoch{1};

// The last answer of Find() on this thread.
struct CachedLookup {
  v8::Isolate* isolate;
  RuntimeImpl* runtime;
  uint64_t epoch;
};
thread_local CachedLookup t_last = {nullptr, nullptr, 0};

}  // namespace

bool RuntimeRegistry::Add(v8::Isolate* isolate, RuntimeImpl* runtime) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (!registry.runtimes.try_emplace(isolate, runtime).second)
    return false;
  g_epoch.fetch_add(1, std::memory_order_release);
  return true;
}

void RuntimeRegistry::Remove(v8::Isolate* isolate, RuntimeImpl* runtime) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.runtimes.find(isolate);
  if (it == registry.runtimes.end() || it->second != runtime)
    return;
  registry.runtimes.erase(it);
  g_epoch.fetch_add(1, std::memory_order_release);
}

RuntimeImpl* RuntimeRegistry::Find(v8::Isolate* isolate) {
  CachedLookup& last = t_last;
  RuntimeImpl* runtime;
  if (last.isolate == isolate &&
      last.epoch == g_epoch.load(std::memory_order_acquire)) {
    runtime = last.runtime;
  } else {
    runtime = FindSlow(isolate);
  }
  // A runtime records itself in its isolate's data slot. An isolate disposed
  // without its runtime being destroyed, and a new one at the same address,
  // has an empty slot: that runtime belongs to a dead isolate.
  if (runtime != nullptr &&
      isolate->GetData(runtime->options().isolate_data_slot) != runtime) {
    Forget(isolate, runtime);
    return nullptr;
  }
  return runtime;
}

void RuntimeRegistry::Forget(v8::Isolate* isolate, RuntimeImpl* runtime) {
  Remove(isolate, runtime);
  runtime->OrphanFromDeadIsolate();
}

RuntimeImpl* RuntimeRegistry::FindOrDie(v8::Isolate* isolate, const char* api) {
  RuntimeImpl* runtime = Find(isolate);
  if (runtime == nullptr) {
    FatalUsage(api,
               "this isolate has no asyncctx::Runtime (create one with "
               "Runtime::Create() and keep it alive while it is used)");
  }
  return runtime;
}

RuntimeImpl* RuntimeRegistry::FindSlow(v8::Isolate* isolate) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.runtimes.find(isolate);
  RuntimeImpl* runtime = it == registry.runtimes.end() ? nullptr : it->second;
  // Read under the mutex: no Add or Remove can slip in between.
  t_last = {isolate, runtime, g_epoch.load(std::memory_order_relaxed)};
  return runtime;
}

}  // namespace internal
}  // namespace asyncctx
