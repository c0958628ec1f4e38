// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/frame.h"

#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-container.h"
#include "v8-function.h"

namespace asyncctx {

v8::Local<v8::Value> CurrentFrame(v8::Local<v8::Context> context) {
  return compat::GetContinuationData(compat::IsolateOf(context), context);
}

bool FrameLookup(v8::Local<v8::Context> context,
                 v8::Local<v8::Value> frame,
                 v8::Local<v8::Value> key,
                 v8::Local<v8::Value>* value) {
  if (!frame->IsArray())
    return false;
  v8::Local<v8::Array> entries = frame.As<v8::Array>();
  uint32_t length = entries->Length();
  for (uint32_t i = 0; i + 1 < length; i += 2) {
    v8::Local<v8::Value> entry_key;
    if (!entries->Get(context, i).ToLocal(&entry_key))
      return false;
    if (entry_key->StrictEquals(key)) {
      return entries->Get(context, i + 1).ToLocal(value);
    }
  }
  return false;
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
