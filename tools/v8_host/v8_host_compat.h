// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The V8 version differences of the shell (tools/shell) and the tests
// (test/): what they need beyond the public API, and the library does not.
// The library's own shims are in src/v8_compat.h; the few both need (an
// isolate of a context, internal-field pointers, script origins) are
// defined in each, so that the host includes no src/ header.
//
// Checked like src/v8_compat.h (tools/check_v8_headers).

#ifndef ASYNCCTX_TOOLS_V8_HOST_V8_HOST_COMPAT_H_
#define ASYNCCTX_TOOLS_V8_HOST_V8_HOST_COMPAT_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "v8-context.h"
#include "v8-function-callback.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-message.h"
#include "v8-object.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-snapshot.h"
#include "v8-value.h"
#include "v8-version.h"

namespace asyncctx {
namespace host_compat {

// Context::GetIsolate() and Object::GetIsolate() are gone in V8 14; the
// context's isolate is the entered one there.
inline v8::Isolate* IsolateOf(v8::Local<v8::Context> context) {
#if V8_MAJOR_VERSION >= 14
  (void)context;
  return v8::Isolate::GetCurrent();
#else
  return context->GetIsolate();
#endif
}

// V8 14 tags aligned pointers in internal fields and embedder data.
inline void* GetInternalPointer(v8::Local<v8::Object> object, int index) {
#if V8_MAJOR_VERSION >= 14
  return object->GetAlignedPointerFromInternalField(
      index, v8::kEmbedderDataTypeTagDefault);
#else
  return object->GetAlignedPointerFromInternalField(index);
#endif
}

inline void SetInternalPointer(v8::Local<v8::Object> object,
                               int index,
                               void* value) {
#if V8_MAJOR_VERSION >= 14
  object->SetAlignedPointerInInternalField(index, value,
                                           v8::kEmbedderDataTypeTagDefault);
#else
  object->SetAlignedPointerInInternalField(index, value);
#endif
}

// ScriptOrigin lost its Isolate* parameter in V8 12.
inline v8::ScriptOrigin MakeScriptOrigin(v8::Isolate* isolate,
                                         v8::Local<v8::Value> resource_name) {
#if V8_MAJOR_VERSION >= 12
  (void)isolate;
  return v8::ScriptOrigin(resource_name);
#else
  return v8::ScriptOrigin(isolate, resource_name);
#endif
}

// FunctionCallbackInfo::Holder() is gone in V8 13; This() is the receiver
// the signature checked.
template <typename T>
inline v8::Local<v8::Object> HolderOf(const v8::FunctionCallbackInfo<T>& info) {
#if V8_MAJOR_VERSION >= 13
  return info.This();
#else
  return info.Holder();
#endif
}

// Object::GetPrototype() is gone in V8 14; GetPrototypeV2() differs only for
// global proxies (it does not skip their hidden prototype).
inline v8::Local<v8::Value> GetPrototype(v8::Local<v8::Object> object) {
#if V8_MAJOR_VERSION >= 14
  return object->GetPrototypeV2();
#else
  return object->GetPrototype();
#endif
}

// Copies all of `string` as UTF-16 into `buffer` (string->Length() units).
inline void WriteUtf16(v8::Isolate* isolate,
                       v8::Local<v8::String> string,
                       uint16_t* buffer) {
#if V8_MAJOR_VERSION >= 14
  string->WriteV2(isolate, 0, static_cast<uint32_t>(string->Length()), buffer);
#else
  string->Write(isolate, buffer);
#endif
}

// The OOM handler gets (location, is_heap_oom) on every V8; from V8 10.5 V8
// itself passes an OOMDetails. One handler per process (the last one set).
using OOMHandler = void (*)(const char* location, bool is_heap_oom);
inline std::atomic<OOMHandler>& CurrentOOMHandler() {
  static std::atomic<OOMHandler> handler{nullptr};
  return handler;
}
inline void SetOOMErrorHandler(v8::Isolate* isolate, OOMHandler handler) {
  CurrentOOMHandler().store(handler);
#if V8_MAJOR_VERSION > 10 || (V8_MAJOR_VERSION == 10 && V8_MINOR_VERSION >= 5)
  isolate->SetOOMErrorHandler(
      [](const char* location, const v8::OOMDetails& details) {
        CurrentOOMHandler().load()(location, details.is_heap_oom);
      });
#else
  isolate->SetOOMErrorHandler([](const char* location, bool is_heap_oom) {
    CurrentOOMHandler().load()(location, is_heap_oom);
  });
#endif
}

// --- ES modules (the shell's module loader) --------------------------------
// (The resolve and dynamic-import callback types are the same from V8 10.2
// on, apart from the names of their parameters, so they need nothing here.)

// A ScriptOrigin for an ES module named `resource_name` (the Isolate*
// parameter went away in V8 12).
inline v8::ScriptOrigin MakeModuleOrigin(v8::Isolate* isolate,
                                         v8::Local<v8::Value> resource_name) {
#if V8_MAJOR_VERSION >= 12
  (void)isolate;
  return v8::ScriptOrigin(resource_name, 0, 0, false, -1,
                          v8::Local<v8::Value>(), false, false, true);
#else
  return v8::ScriptOrigin(isolate, resource_name, 0, 0, false, -1,
                          v8::Local<v8::Value>(), false, false, true);
#endif
}

// Element `index` of a FixedArray (a module's requests): V8 14 dropped the
// Context parameter, which V8 10.2 requires.
inline v8::Local<v8::Data> FixedArrayGet(v8::Local<v8::Context> context,
                                         v8::Local<v8::FixedArray> array,
                                         int index) {
#if V8_MAJOR_VERSION >= 14
  (void)context;
  return array->Get(index);
#else
  return array->Get(context, index);
#endif
}

// --- Snapshots (test/unittests/snapshot_test.cc, docs/embedding.md) -------

#if V8_MAJOR_VERSION >= 12
// The SnapshotCreator leaves disposing of the isolate to its owner.
inline constexpr bool kSnapshotCreatorDisposesIsolate = false;
#else
// The SnapshotCreator disposes of the isolate in its destructor.
inline constexpr bool kSnapshotCreatorDisposesIsolate = true;
#endif

// A SnapshotCreator for `isolate`, allocated with v8::Isolate::Allocate() and
// not yet initialized; `params` gives the external references (and the
// array buffer allocator from V8 12). V8 10.2 takes the references alone
// and creates its own allocator.
inline std::unique_ptr<v8::SnapshotCreator> NewSnapshotCreator(
    v8::Isolate* isolate,
    const v8::Isolate::CreateParams& params) {
#if V8_MAJOR_VERSION >= 12
  return std::make_unique<v8::SnapshotCreator>(isolate, params);
#else
  return std::make_unique<v8::SnapshotCreator>(isolate,
                                               params.external_references);
#endif
}

}  // namespace host_compat
}  // namespace asyncctx

#endif  // ASYNCCTX_TOOLS_V8_HOST_V8_HOST_COMPAT_H_
