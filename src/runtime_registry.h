// Copyright 2026 the asyncctx authors. All rights reserved.
//
// RuntimeRegistry: which Runtime belongs to which isolate, for the static
// lookups (Runtime::From, and every C++ entry point that is given only a
// context or an isolate).
//
// The runtime pointer also lives in the isolate data slot the host chose
// (RuntimeOptions::isolate_data_slot), which reserves that slot. But the slot
// may differ from isolate to isolate, and reading a slot asyncctx does not
// own in an isolate without a runtime would misread a host's pointer, so the
// lookup by isolate goes through this process-wide map instead. It costs a
// mutex only on a miss: each thread caches its last answer, valid while no
// runtime was created or destroyed anywhere in the process (a global epoch).
// A runtime is used only on its isolate's thread, so no other thread can
// change the answer for the isolate a thread is using.

#ifndef ASYNCCTX_SRC_RUNTIME_REGISTRY_H_
#define ASYNCCTX_SRC_RUNTIME_REGISTRY_H_

#include "v8-isolate.h"

namespace asyncctx {
namespace internal {

class RuntimeImpl;

class RuntimeRegistry {
 public:
  // Records `runtime` as `isolate`'s. Returns false, and records nothing, if
  // the isolate already has one.
  static bool Add(v8::Isolate* isolate, RuntimeImpl* runtime);
  // Forgets `isolate`'s runtime (which must be `runtime`).
  static void Remove(v8::Isolate* isolate, RuntimeImpl* runtime);
  // The runtime of `isolate`, or null: the one way to get an isolate's
  // runtime. A runtime left behind by a disposed isolate whose address a new
  // isolate reuses is forgotten here (RuntimeImpl::OrphanFromDeadIsolate),
  // never returned.
  static RuntimeImpl* Find(v8::Isolate* isolate);
  // As Find(), but a missing runtime is a fatal usage error that names
  // `api`.
  static RuntimeImpl* FindOrDie(v8::Isolate* isolate, const char* api);

 private:
  static RuntimeImpl* FindSlow(v8::Isolate* isolate);
  static void Forget(v8::Isolate* isolate, RuntimeImpl* runtime);
};

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_RUNTIME_REGISTRY_H_
