// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/frame.h"

#include "src/context_state.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace internal {

v8::Local<v8::Value> CurrentFrame(v8::Local<v8::Context> context) {
  return compat::GetContinuationData(compat::IsolateOf(context), context);
}

v8::Local<v8::Value> RootFrame(v8::Isolate* isolate, ContextState* state) {
  if (state == nullptr || state->root_frame.IsEmpty())
    return v8::Undefined(isolate);
  return state->root_frame.Get(isolate);
}

void EnterFrame(ContextState* state,
                v8::Local<v8::Context> context,
                v8::Local<v8::Value> frame) {
  v8::Isolate* isolate = state->runtime->isolate();
  compat::SetContinuationData(isolate, context, frame);
  if (!frame->IsUndefined() &&
      state->context_fields[kContextRepairActive] == 0 &&
      state->context_fields[kContextThenableRepair] != 0 &&
      frame != state->root_frame.Get(isolate)) {
    ActivateThenableRepair(state, context);
  }
}

void ActivateThenableRepair(ContextState* state,
                            v8::Local<v8::Context> context) {
  v8::Isolate* isolate = state->runtime->isolate();
  v8::TryCatch try_catch(isolate);
  // All or nothing (as activateRepairOnce in src/js/promise_hooks.js): a
  // stack overflow before the promise hooks were installed (or before their
  // module ran) leaves the repair off, and the next frame entered tries
  // again.
  v8::Local<v8::Function> refresh =
      state->LayerFunction(context, &ContextState::refresh_promise_hooks);
  if (refresh.IsEmpty())
    return;
  state->context_fields[kContextRepairActive] = 1;
  if (refresh->Call(context, v8::Undefined(isolate), 0, nullptr).IsEmpty() &&
      !try_catch.HasTerminated()) {
    state->context_fields[kContextRepairActive] = 0;
  }
}

void SetContextThenableRepair(ContextState* state, bool enabled) {
  v8::Isolate* isolate = state->runtime->isolate();
  state->context_fields[kContextThenableRepair] = enabled ? 1 : 0;
  if (enabled || state->context_fields[kContextRepairActive] == 0)
    return;
  state->context_fields[kContextRepairActive] = 0;
  if (state->context.IsEmpty())
    return;
  v8::Local<v8::Context> context = state->context.Get(isolate);
  v8::Context::Scope context_scope(context);
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::Function> refresh =
      state->LayerFunction(context, &ContextState::refresh_promise_hooks);
  if (refresh.IsEmpty())
    return;
  (void)refresh->Call(context, v8::Undefined(isolate), 0, nullptr).IsEmpty();
}

namespace {

// Frames are objects of the JavaScript layer of the context that made them.
bool IsFrameOfAnotherContext(v8::Isolate* isolate,
                             v8::Local<v8::Value> frame,
                             v8::Local<v8::Context> context) {
  v8::Local<v8::Context> owner;
  return frame->IsObject() &&
         compat::CreationContextOf(isolate, frame.As<v8::Object>())
             .ToLocal(&owner) &&
         owner != context;
}

}  // namespace

void EnterFrameSavingPrevious(RuntimeImpl* runtime,
                              ContextState* state,
                              v8::Local<v8::Context> context,
                              v8::Local<v8::Value> frame,
                              FrameRestore restore,
                              v8::Global<v8::Value>* previous) {
  v8::Isolate* isolate = runtime->isolate();
  v8::Local<v8::Value> current = CurrentFrame(context);
  if (!current->IsUndefined() && current != state->root_frame.Get(isolate) &&
      (restore == FrameRestore::kPrevious ||
       IsFrameOfAnotherContext(isolate, current, context))) {
    previous->Reset(isolate, current);
  }
  EnterFrame(state, context, frame);
}

void RestorePreviousFrame(v8::Isolate* isolate,
                          ContextState* state,
                          v8::Local<v8::Context> context,
                          v8::Global<v8::Value>* previous) {
  if (!previous->IsEmpty()) {
    compat::SetContinuationData(isolate, context, previous->Get(isolate));
    previous->Reset();
    return;
  }
  compat::SetContinuationData(isolate, context, RootFrame(isolate, state));
}

bool FrameLookup(ContextState* state,
                 v8::Local<v8::Context> context,
                 v8::Local<v8::Value> frame,
                 v8::Local<v8::Value> key,
                 v8::Local<v8::Value>* value) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Function> lookup =
      state->LayerFunction(context, &ContextState::frame_lookup);
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
  v8::Local<v8::Function> frame_with =
      state->LayerFunction(context, &ContextState::frame_with);
  if (frame_with.IsEmpty())
    return {};
  v8::Local<v8::Value> argv[] = {frame, key, value};
  return frame_with->Call(context, v8::Undefined(isolate), 3, argv);
}

}  // namespace internal
}  // namespace asyncctx
