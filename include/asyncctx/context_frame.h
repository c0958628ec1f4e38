// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx::ContextFrame: carry context into host callbacks without an async
// resource.
//
// A frame holds every AsyncLocalStorage store and AsyncContext.Variable
// value current at one point (it is immutable: later run()/enterWith() make
// new frames). Capturing one is cheap; entering it later makes those values
// current again, with no async id, no hooks and no checkpoint. This is
// workerd's AsyncContextFrame::Scope: for hosts that run many small native
// continuations and want context to flow through them (a callback list of a
// stream, a cache fill) without the cost or the observability of an
// AsyncResource.
//
//   asyncctx::ContextFrame frame = asyncctx::ContextFrame::Current(context);
//   // ... later, on the isolate's thread:
//   {
//     asyncctx::ContextFrame::Scope scope(frame);
//     callback->Call(context, recv, argc, argv);  // sees the captured stores
//   }
//
// AsyncResource holds a ContextFrame captured at creation, and CallbackScope
// enters it and restores the previous frame through the same code as
// Scope; use them when the work should be visible to async_hooks.

#ifndef ASYNCCTX_CONTEXT_FRAME_H_
#define ASYNCCTX_CONTEXT_FRAME_H_

#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"
#include "v8-value.h"

namespace asyncctx {

// The context frame current in one installed context at one point (see the
// top of this file). Move-only (it holds V8 handles); destroy it on the
// isolate's thread.
class ASYNCCTX_EXPORT ContextFrame {
 public:
  // The frame current in `context` now. `context` must be installed.
  // Needs a HandleScope.
  static ContextFrame Current(v8::Local<v8::Context> context);

  // Moves the captured frame; `other` is left empty.
  ContextFrame(ContextFrame&& other) = default;
  // Moves the captured frame; `other` is left empty.
  ContextFrame& operator=(ContextFrame&& other) = default;
  ContextFrame(const ContextFrame&) = delete;
  ContextFrame& operator=(const ContextFrame&) = delete;
  ~ContextFrame();

  // The context the frame was captured in. Needs a HandleScope.
  v8::Local<v8::Context> context() const;

  // Enters a captured frame and restores the previous frame on destruction
  // (whichever context that frame belongs to: from V8 12 on, V8 keeps one
  // current frame per isolate). Scopes nest; they must be destroyed in
  // reverse order of creation.
  class ASYNCCTX_NODISCARD_EXPORT Scope {
   public:
    // Enters `frame` in its context (the context itself is not entered).
    // `frame` must outlive the scope.
    explicit Scope(const ContextFrame& frame);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    v8::Isolate* isolate_;
    v8::Global<v8::Context> context_;
    // Empty when the previous frame was the context's root.
    v8::Global<v8::Value> saved_frame_;
  };

 private:
  friend class AsyncResource;
  friend class CallbackScope;

  ContextFrame() = default;
  // The capture behind Current(), for callers that have checked that
  // `context` is installed.
  static ContextFrame Capture(v8::Isolate* isolate,
                              v8::Local<v8::Context> context);
  // The captured frame. Needs a HandleScope.
  v8::Local<v8::Value> frame() const { return frame_.Get(isolate_); }

  v8::Isolate* isolate_ = nullptr;
  v8::Global<v8::Context> context_;
  v8::Global<v8::Value> frame_;  // undefined: the root frame
};

}  // namespace asyncctx

#endif  // ASYNCCTX_CONTEXT_FRAME_H_
