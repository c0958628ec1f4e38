// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The one place that knows which V8 version we compile against.
//
// Checked: V8 10.2 (built and run), 11.3 (Node 20), 13.6 (Node 24) and 14.6
// (Node 26) headers (compiled with -fsyntax-only by tools/check_v8_headers).
//
// V8 keeps one "continuation preserved embedder data" (CPED) value, which
// promise reactions and `await` capture and restore. On V8 10.2 and 11.3 it
// lives on the v8::Context; from V8 12 it lives on the isolate (and from 12.x
// a V2 API takes Local<Data>). From V8 12.4, thenable jobs and
// Isolate::EnqueueMicrotask also capture it, so the thenable repair and the
// queueMicrotask wrapping are unnecessary there.
//
// Everything else in src/ goes through these functions and never tests
// V8_MAJOR_VERSION itself. The shims only the shell and the tests need live
// beside their host, in tools/v8_host/v8_host_compat.h.

#ifndef ASYNCCTX_SRC_V8_COMPAT_H_
#define ASYNCCTX_SRC_V8_COMPAT_H_

#include <atomic>
#include <memory>

#include <vector>
#include "v8-array-buffer.h"
#include "v8-callbacks.h"

#include "v8-context.h"
#include "v8-debug.h"
#include "v8-function-callback.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-message.h"
#include "v8-object.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-snapshot.h"
#include "v8-unwinder.h"
#include "v8-value.h"
#include "v8-version.h"

namespace asyncctx {
namespace internal {

namespace compat {

#if V8_MAJOR_VERSION > 12 || (V8_MAJOR_VERSION == 12 && V8_MINOR_VERSION >= 4)
// V8 propagates the continuation data through thenable jobs and enqueued
// microtasks by itself.
inline constexpr bool kV8PropagatesThenables = true;
#else
inline constexpr bool kV8PropagatesThenables = false;
#endif

// The frame a microtask checkpoint of the runtime starts in, given the
// context's root frame. Before V8 12.4 V8 enters a job's captured frame only
// when it is not undefined (a job queued at the root object enters it) and
// clears the slot after such a job: started at undefined, the slot holds the
// root object at a job's `before` hook only when V8 entered it for a job
// queued there, which is how the thenable repair tells a reaction queued at
// the root from a thenable job (src/js/thenable_repair.js).
inline v8::Local<v8::Value> CheckpointStartFrame(v8::Isolate* isolate,
                                                 v8::Local<v8::Value> root) {
  if (kV8PropagatesThenables)
    return root;
  return v8::Undefined(isolate);
}

#if V8_MAJOR_VERSION >= 12
// A TerminateExecution() that unwinds to C++ with no JavaScript left on the
// stack ends there: the isolate is no longer terminating once the call
// returns (V8 10.2 kept terminating until the host's TryCatch was left).
inline constexpr bool kV8EndsTerminationAtTheTop = true;
#else
inline constexpr bool kV8EndsTerminationAtTheTop = false;
#endif

#if V8_MAJOR_VERSION >= 12
// The continuation data is the isolate's (one slot for every context).
inline constexpr bool kContinuationDataPerIsolate = true;
#else
inline constexpr bool kContinuationDataPerIsolate = false;
#endif

#if V8_MAJOR_VERSION >= 12
inline v8::Local<v8::Value> GetContinuationData(v8::Isolate* isolate,
                                                v8::Local<v8::Context>) {
#if V8_MAJOR_VERSION >= 14
  v8::Local<v8::Data> data = isolate->GetContinuationPreservedEmbedderDataV2();
  if (data.IsEmpty())
    return v8::Undefined(isolate);
  return data.As<v8::Value>();
#else
  return isolate->GetContinuationPreservedEmbedderData();
#endif
}

inline void SetContinuationData(v8::Isolate* isolate,
                                v8::Local<v8::Context>,
                                v8::Local<v8::Value> value) {
#if V8_MAJOR_VERSION >= 14
  isolate->SetContinuationPreservedEmbedderDataV2(value);
#else
  isolate->SetContinuationPreservedEmbedderData(value);
#endif
}
#else  // V8 10.x / 11.x: per-context data.
inline v8::Local<v8::Value> GetContinuationData(
    v8::Isolate*,
    v8::Local<v8::Context> context) {
  return context->GetContinuationPreservedEmbedderData();
}

inline void SetContinuationData(v8::Isolate*,
                                v8::Local<v8::Context> context,
                                v8::Local<v8::Value> value) {
  context->SetContinuationPreservedEmbedderData(value);
}
#endif

// The continuation data as the JavaScript layer's bindings see it: that of
// the current context. V8 >= 12 keeps it on the isolate, so the bindings on
// every run and getStore do not need to look the context up there.
inline v8::Local<v8::Value> GetCurrentContinuationData(v8::Isolate* isolate) {
#if V8_MAJOR_VERSION >= 12
  return GetContinuationData(isolate, v8::Local<v8::Context>());
#else
  return GetContinuationData(isolate, isolate->GetCurrentContext());
#endif
}

// See GetCurrentContinuationData().
inline void SetCurrentContinuationData(v8::Isolate* isolate,
                                       v8::Local<v8::Value> value) {
#if V8_MAJOR_VERSION >= 12
  SetContinuationData(isolate, v8::Local<v8::Context>(), value);
#else
  SetContinuationData(isolate, isolate->GetCurrentContext(), value);
#endif
}

// V8 >= 12 gives JavaScript accessors of its own for the continuation data
// (getContinuationPreservedEmbedderData / setContinuationPreservedEmbedderData
// in the context's extras binding object, which only C++ can reach), and
// TurboFan compiles a call to them into a load or a store on the isolate:
// no API callback. They read and write what GetCurrentContinuationData()
// and SetCurrentContinuationData() do. Sets `get` and `set` and returns true
// where the context has both; false on V8 10.x / 11.x (per-context data).
inline bool FrameAccessors(v8::Local<v8::Context> context,
                           v8::Local<v8::Function>* get,
                           v8::Local<v8::Function>* set) {
#if V8_MAJOR_VERSION >= 12
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::Local<v8::Object> extras = context->GetExtrasBindingObject();
  if (extras.IsEmpty())
    return false;
  // Own data properties only: the extras object inherits from the context's
  // Object.prototype, where a script may have put a getter of that name
  // (it would then be handed every frame).
  // (The extras object itself is V8's: no script can reach it, so its own
  // properties are the data properties V8 defined.)
  auto own_function = [&](const char* name, v8::Local<v8::Function>* out) {
    v8::Local<v8::String> key =
        v8::String::NewFromUtf8(isolate, name).ToLocalChecked();
    v8::Local<v8::Value> value;
    if (!extras->HasOwnProperty(context, key).FromMaybe(false) ||
        !extras->Get(context, key).ToLocal(&value) || !value->IsFunction()) {
      return false;
    }
    *out = value.As<v8::Function>();
    return true;
  };
  return own_function("getContinuationPreservedEmbedderData", get) &&
         own_function("setContinuationPreservedEmbedderData", set);
#else
  (void)context;
  (void)get;
  (void)set;
  return false;
#endif
}

// Detaches `buffer` (its views then have length 0). V8 11 added a detach key
// and made the call fallible (only with a key, which asyncctx never sets).
inline void DetachArrayBuffer(v8::Local<v8::ArrayBuffer> buffer) {
  if (!buffer->IsDetachable())
    return;
#if V8_MAJOR_VERSION >= 11
  (void)buffer->Detach(v8::Local<v8::Value>()).IsNothing();
#else
  buffer->Detach();
#endif
}

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

// The context `object` was created in (empty for a few internal objects).
// V8 >= 12 prefers the overload that takes the isolate.
inline v8::MaybeLocal<v8::Context> CreationContextOf(
    v8::Isolate* isolate,
    v8::Local<v8::Object> object) {
#if V8_MAJOR_VERSION >= 12
  return object->GetCreationContext(isolate);
#else
  (void)isolate;
  return object->GetCreationContext();
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

inline void* GetEmbedderPointer(v8::Local<v8::Context> context, int index) {
#if V8_MAJOR_VERSION >= 14
  return context->GetAlignedPointerFromEmbedderData(
      index, v8::kEmbedderDataTypeTagDefault);
#else
  return context->GetAlignedPointerFromEmbedderData(index);
#endif
}

inline void SetEmbedderPointer(v8::Local<v8::Context> context,
                               int index,
                               void* value) {
#if V8_MAJOR_VERSION >= 14
  context->SetAlignedPointerInEmbedderData(index, value,
                                           v8::kEmbedderDataTypeTagDefault);
#else
  context->SetAlignedPointerInEmbedderData(index, value);
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

// True if a frame of a script (one the debugger would show, as
// StackTrace::CurrentStackTrace counts them) is on the stack below the
// current C++ frame. Allocates nothing in V8's heap: MakeCallback asks on
// every call a host makes without a TryCatch of its own.
inline bool ScriptFrameBelow(v8::Isolate* isolate) {
  v8::HandleScope scope(isolate);
#if V8_MAJOR_VERSION >= 12
  // The same walk as CurrentStackTrace, stopping at the first script frame,
  // and returning that script's options instead of building frame objects.
  return !isolate->GetCurrentHostDefinedOptions().IsEmpty();
#else
  // V8 10.2 has no walk that stops at a script frame without allocating.
  // The profiler's stack sample answers without walking when no JavaScript
  // was entered (then no script frame can exist), as on a host's event loop,
  // and otherwise walks from this frame as it does from a signal handler;
  // only when it finds a frame does the exact, allocating walk run.
  v8::RegisterState registers;
  void* frames[1];
  registers.sp = frames;
  registers.fp = __builtin_frame_address(0);
  v8::SampleInfo info{};
  isolate->GetStackSample(registers, frames, 1, &info);
  if (info.frames_count == 0 && info.vm_state != v8::StateTag::OTHER)
    return false;
  return v8::StackTrace::CurrentStackTrace(isolate, 1)->GetFrameCount() > 0;
#endif
}

// --- ES modules (src/node_module.cc) ---------------------------------------

// CreateSyntheticModule takes a std::vector of export names on V8 10.2 and a
// MemorySpan from V8 12.
inline v8::Local<v8::Module> CreateSyntheticModule(
    v8::Isolate* isolate,
    v8::Local<v8::String> name,
    const std::vector<v8::Local<v8::String> >& export_names,
    v8::Module::SyntheticModuleEvaluationSteps steps) {
#if V8_MAJOR_VERSION >= 12
  return v8::Module::CreateSyntheticModule(
      isolate, name,
      v8::MemorySpan<const v8::Local<v8::String> >(export_names.data(),
                                                   export_names.size()),
      steps);
#else
  return v8::Module::CreateSyntheticModule(isolate, name, export_names, steps);
#endif
}

}  // namespace compat

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_V8_COMPAT_H_
