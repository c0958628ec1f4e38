// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Frames from C++. The JavaScript layer owns the frame format
// (src/js/frames.js: an immutable list of nodes kept in V8's continuation
// data; undefined and the layer's root object are the root frame). These
// helpers serve the C++ API (ContextKey, CallbackScope) and the runtime by
// calling the layer's own functions, so there is one implementation of the
// format. This module also owns frame entry from C++, the root frame and the
// thenable repair (which the first non-root frame turns on).

#ifndef ASYNCCTX_SRC_FRAME_H_
#define ASYNCCTX_SRC_FRAME_H_

#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"
#include "v8-value.h"

namespace asyncctx {
namespace internal {

class RuntimeImpl;
struct ContextState;

// The current frame of `context`.
v8::Local<v8::Value> CurrentFrame(v8::Local<v8::Context> context);

// The root frame of `state`'s context as the JavaScript layer's object (V8
// 10.2 captures it for promise jobs, where it skips undefined), or undefined
// when `state` is null or the object is gone.
v8::Local<v8::Value> RootFrame(v8::Isolate* isolate, ContextState* state);

// Makes `frame` the current frame of `context`, activating the thenable
// repair the first time a non-root frame is entered.
void EnterFrame(ContextState* state,
                v8::Local<v8::Context> context,
                v8::Local<v8::Value> frame);

// Turns the thenable repair of `state`'s context on (the layer's promise
// hooks then stamp thenables with their frame).
void ActivateThenableRepair(ContextState* state,
                            v8::Local<v8::Context> context);

// Allows (`enabled`) or forbids the thenable repair in `state`'s context; a
// repair that was active is turned off. May call into JavaScript, which may
// let the GC collect a context (see Runtime::SetThenableRepair).
void SetContextThenableRepair(ContextState* state, bool enabled);

// Looks `key` up in `frame`. Returns true and sets `value` if present.
bool FrameLookup(ContextState* state,
                 v8::Local<v8::Context> context,
                 v8::Local<v8::Value> frame,
                 v8::Local<v8::Value> key,
                 v8::Local<v8::Value>* value);

// A new frame equal to `frame` with `key` mapped to `value`.
v8::MaybeLocal<v8::Value> FrameWith(ContextState* state,
                                    v8::Local<v8::Context> context,
                                    v8::Local<v8::Value> frame,
                                    v8::Local<v8::Value> key,
                                    v8::Local<v8::Value> value);

// The one implementation of "enter a captured frame, then put back the
// frame that was current before", behind ContextFrame::Scope, CallbackScope
// and ContextKey::Scope.
//
// What comes back when the frame is left.
enum class FrameRestore {
  // The exact previous frame (ContextFrame::Scope, ContextKey::Scope, a
  // nested CallbackScope).
  kPrevious,
  // A macrotask (the outermost CallbackScope) ends at its context's root: a
  // frame of the same context left by earlier code must not outlive it. A
  // frame of another context comes back: V8 >= 12 keeps one current frame
  // per isolate, so that is the frame of a context the host entered and is
  // in the middle of.
  kRootUnlessOtherContext,
};

// Makes `frame` current in `context` (activating the thenable repair on the
// first non-root frame) and records in `*previous` the frame to put back.
// `*previous` stays empty when that is `context`'s root frame (undefined or
// the layer's root object): the usual case, at the top of a host callback,
// takes no handle.
void EnterFrameSavingPrevious(RuntimeImpl* runtime,
                              ContextState* state,
                              v8::Local<v8::Context> context,
                              v8::Local<v8::Value> frame,
                              FrameRestore restore,
                              v8::Global<v8::Value>* previous);

// Puts back the frame recorded by EnterFrameSavingPrevious: `*previous`,
// whichever context it belongs to, or `context`'s root frame when it is
// empty (the root object, so that V8 10.2 captures it for promise jobs).
// Leaves `*previous` empty. `state` may be null (the runtime is gone): the
// root is then undefined.
void RestorePreviousFrame(v8::Isolate* isolate,
                          ContextState* state,
                          v8::Local<v8::Context> context,
                          v8::Global<v8::Value>* previous);

}  // namespace internal
}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_FRAME_H_
