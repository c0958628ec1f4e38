// Copyright 2026 the asyncctx authors. All rights reserved.
//
// IsolateTeardownWatch: learns that an isolate's heap was torn down
// (v8::Isolate::Dispose) without the host's help, so that a runtime the host
// never destroyed can free its own memory.
//
// V8 has no disposal callback, but when it tears a heap down it finalizes
// every external string left in it, which calls the string resource's
// Dispose(). The watch is such a string, kept alive by the heap itself until
// Cancel(): it is the data of a message listener that listens to no message
// level (so V8 never calls it). A v8::Global would do too, but a
// SnapshotCreator refuses every Global still alive at CreateBlob(), while it
// serializes a listener's data like any string (the listener's function is
// among the external references, src/external_references.cc). Its Dispose()
// can run only at teardown while the watch is armed; a cancelled watch's
// string is collected like any other, and its Dispose() then does nothing.
//
// AbandonGlobal() is the other half: Dispose() runs while the heap is half
// gone, where a v8::Global's destructor (which resets the handle in the
// heap's handle table) is a use after free. It empties a Global's C++ object
// without telling V8.

#ifndef ASYNCCTX_SRC_ISOLATE_TEARDOWN_H_
#define ASYNCCTX_SRC_ISOLATE_TEARDOWN_H_

#include <atomic>
#include <new>

#include "v8-isolate.h"
#include "v8-persistent-handle.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace internal {

class IsolateTeardownWatch {
 public:
  // Runs on the thread that disposes the isolate, inside Isolate::Dispose:
  // it must not call V8.
  using Callback = void (*)(void* data);

  IsolateTeardownWatch() = default;
  IsolateTeardownWatch(const IsolateTeardownWatch&) = delete;
  IsolateTeardownWatch& operator=(const IsolateTeardownWatch&) = delete;
  // Must have been cancelled or abandoned.
  ~IsolateTeardownWatch() = default;

  // Arms the watch: `callback(data)` runs when `isolate`'s heap is torn
  // down, unless Cancel() comes first. On the isolate's thread, once.
  void Start(v8::Isolate* isolate, Callback callback, void* data);
  // Disarms the watch and lets the GC collect its string. On the isolate's
  // thread, with the isolate alive.
  void Cancel();
  // From the callback: forgets the string without touching V8.
  void Abandon() { resource_ = nullptr; }

  // The listener that holds the string; never called.
  static void HoldingListener(v8::Local<v8::Message>, v8::Local<v8::Value>);

 private:
  class Resource;

  v8::Isolate* isolate_ = nullptr;
  Resource* resource_ = nullptr;  // owned by V8 once the string exists
};

// Empties `handle` without telling V8: its destructor then does nothing.
// Only for a Global whose isolate is being torn down; anywhere else this
// leaks the handle.
template <typename T>
void AbandonGlobal(v8::Global<T>* handle) {
  // Ends the old object's lifetime without its destructor (which would
  // reset the handle in the dead heap) and makes an empty one in its place.
  new (handle) v8::Global<T>();
}

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_ISOLATE_TEARDOWN_H_
