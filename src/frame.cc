// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/frame.h"

#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-function.h"

namespace asyncctx {

v8::Local<v8::Value> CurrentFrame(v8::Local<v8::Context> context) {
  return compat::GetContinuationData(compat::IsolateOf(context), context);
}

bool FrameLookup(ContextState* state,
                 v8::Local<v8::Context> context,
                 v8::Local<v8::Value> frame,
                 v8::Local<v8::Value> key,
                 v8::Local<v8::Value>* value) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Function> lookup = state->frame_lookup.Get(isolate);
  if (lookup.IsEmpty())
    return false;
  v8::Local<v8::Value> argv[] = {frame, key};
  v8::Local<v8::Value> result;
  if (!lookup->Call(context, v8::Undefined(isolate), 2, argv)
           .ToLocal(&result) ||
      result == state->frame_missing.Get(isolate)) {
    return false;
  }
  *value = result;
  return true;
}

v8::MaybeLocal<v8::Value> FrameWith(ContextState* state,
                                    v8::Local<v8::Context> context,
                                    v8::Local<v8::Value> frame,
                                    v8::Local<v8::Value> key,
                                    v8::Local<v8::Value> value) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Function> frame_with = state->frame_with.Get(isolate);
  if (frame_with.IsEmpty())
    return {};
  v8::Local<v8::Value> argv[] = {frame, key, value};
  return frame_with->Call(context, v8::Undefined(isolate), 3, argv);
}

}  // namespace asyncctx
