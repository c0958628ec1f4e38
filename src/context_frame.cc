// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/context_frame.h"

#include "src/errors.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

ContextFrame ContextFrame::Current(v8::Local<v8::Context> context) {
  if (context.IsEmpty())
    FatalUsage("ContextFrame::Current", "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate, "ContextFrame::Current");
  ContextState::FindOrDie(runtime, context, "ContextFrame::Current");
  return Capture(isolate, context);
}

ContextFrame ContextFrame::Capture(v8::Isolate* isolate,
                                   v8::Local<v8::Context> context) {
  ContextFrame frame;
  frame.isolate_ = isolate;
  frame.context_.Reset(isolate, context);
  frame.frame_.Reset(isolate, CurrentFrame(context));
  return frame;
}

ContextFrame::~ContextFrame() = default;

v8::Local<v8::Context> ContextFrame::context() const {
  return context_.Get(isolate_);
}

ContextFrame::Scope::Scope(const ContextFrame& frame)
    : isolate_(frame.isolate_) {
  if (isolate_ == nullptr)
    FatalUsage("ContextFrame::Scope", "the frame was moved from");
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate_, "ContextFrame::Scope");
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = frame.context();
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "ContextFrame::Scope");
  context_.Reset(isolate_, context);
  EnterFrameSavingPrevious(runtime, state, context, frame.frame(),
                           FrameRestore::kPrevious, &saved_frame_);
}

ContextFrame::Scope::~Scope() {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  // The runtime may be gone (the host destroyed it inside the scope): the
  // previous frame still comes back.
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate_);
  RestorePreviousFrame(isolate_, ContextState::Find(runtime, context), context,
                       &saved_frame_);
}

}  // namespace asyncctx
