// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Frames from C++. The JavaScript layer owns the frame format
// (src/js/frames.js: an immutable list of nodes kept in V8's continuation
// data; undefined and the layer's root object are the root frame). These
// helpers serve the C++ API (ContextKey, CallbackScope) by calling the
// layer's own functions, so there is one implementation of the format.

#ifndef ASYNCCTX_SRC_FRAME_H_
#define ASYNCCTX_SRC_FRAME_H_

#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-value.h"

namespace asyncctx {

struct ContextState;

// The current frame of `context`.
v8::Local<v8::Value> CurrentFrame(v8::Local<v8::Context> context);

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

}  // namespace asyncctx

#endif  // ASYNCCTX_SRC_FRAME_H_
