// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/async_resource.h"

#include <new>
#include <utility>

#include "src/errors.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-function.h"
#include "v8-primitive.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

namespace {

void EmitInit(ContextState* state,
              v8::Local<v8::Context> context,
              double async_id,
              const char* type,
              double trigger_async_id,
              v8::Local<v8::Object> resource) {
  if (!state->HasHooks(kHookInit))
    return;
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Function> emit =
      state->LayerFunction(context, &ContextState::emit_init);
  v8::Local<v8::String> type_string;
  if (emit.IsEmpty() ||
      !v8::String::NewFromUtf8(isolate, type).ToLocal(&type_string)) {
    return;
  }
  v8::Local<v8::Value> argv[] = {
      v8::Number::New(isolate, async_id), type_string,
      v8::Number::New(isolate, trigger_async_id), resource};
  (void)emit->Call(context, v8::Undefined(isolate), 4, argv).IsEmpty();
}

}  // namespace

AsyncIds EmitAsyncInit(v8::Local<v8::Context> context,
                       const char* type,
                       v8::Local<v8::Object> resource,
                       double trigger_async_id) {
  if (context.IsEmpty())
    FatalUsage("EmitAsyncInit", "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  RuntimeImpl* runtime = RuntimeRegistry::FindOrDie(isolate, "EmitAsyncInit");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "EmitAsyncInit");
  v8::HandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  ExecutionStack& stack = runtime->stack();
  AsyncIds ids;
  ids.async_id = stack.NewAsyncId();
  ids.trigger_async_id =
      trigger_async_id >= 0 ? trigger_async_id : stack.DefaultTriggerAsyncId();
  if (resource.IsEmpty())
    resource = v8::Object::New(isolate);
  EmitInit(state, context, ids.async_id, type != nullptr ? type : "",
           ids.trigger_async_id, resource);
  return ids;
}

void EmitAsyncDestroy(v8::Local<v8::Context> context, AsyncIds ids) {
  if (context.IsEmpty())
    FatalUsage("EmitAsyncDestroy", "the context is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate, "EmitAsyncDestroy");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "EmitAsyncDestroy");
  if (state->HasHooks(kHookDestroy))
    runtime->QueueDestroy(state, ids.async_id);
}

AsyncResource::AsyncResource(v8::Local<v8::Context> context,
                             const char* type,
                             v8::Local<v8::Object> resource,
                             double trigger_async_id)
    : isolate_(context.IsEmpty() ? nullptr : compat::IsolateOf(context)),
      type_(type != nullptr ? type : "") {
  if (isolate_ == nullptr)
    FatalUsage("AsyncResource", "the context is empty");
  RuntimeImpl* runtime = RuntimeRegistry::FindOrDie(isolate_, "AsyncResource");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "AsyncResource");
  runtime_generation_ = runtime->generation();
  context_embedder_index_ = runtime->options().context_embedder_index;
  // The host may create resources from outside any entered context (an I/O
  // completion on the event loop); allocating the resource object needs one.
  v8::Context::Scope context_scope(context);
  ExecutionStack& stack = runtime->stack();
  async_id_ = stack.NewAsyncId();
  trigger_async_id_ =
      trigger_async_id >= 0 ? trigger_async_id : stack.DefaultTriggerAsyncId();
  if (resource.IsEmpty())
    resource = v8::Object::New(isolate_);
  resource_.Reset(isolate_, resource);
  frame_ = ContextFrame::Capture(isolate_, context);

  EmitInit(state, context, async_id_, type_.c_str(), trigger_async_id_,
           resource);
}

AsyncResource::AsyncResource(AsyncResource&& other)
    : runtime_generation_(other.runtime_generation_),
      context_embedder_index_(other.context_embedder_index_),
      isolate_(other.isolate_),
      async_id_(other.async_id_),
      trigger_async_id_(other.trigger_async_id_),
      type_(std::move(other.type_)),
      destroyed_(other.destroyed_),
      resource_(std::move(other.resource_)),
      frame_(std::move(other.frame_)) {
  if (other.open_scopes_ > 0) {
    FatalUsage("AsyncResource", "moved while a CallbackScope for it is open",
               isolate_);
  }
  other.isolate_ = nullptr;
}

AsyncResource& AsyncResource::operator=(AsyncResource&& other) {
  if (this == &other)
    return *this;
  this->~AsyncResource();
  new (this) AsyncResource(std::move(other));
  return *this;
}

namespace {

// The runtime `resource` belongs to, or null once it was destroyed (a later
// runtime for the isolate has another generation).
RuntimeImpl* LiveRuntime(v8::Isolate* isolate, uint64_t generation) {
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  return runtime != nullptr && runtime->generation() == generation ? runtime
                                                                   : nullptr;
}

}  // namespace

AsyncResource::~AsyncResource() {
  if (isolate_ == nullptr)
    return;  // Moved from.
  // V8 handles may be released only on the isolate's thread: a thread-pool
  // completion must hand the resource back to the event loop.
  if (v8::Isolate::TryGetCurrent() != isolate_) {
    FatalUsage("AsyncResource::~AsyncResource",
               "destroyed on a thread that has not entered its isolate "
               "(destroy resources on the isolate's thread, with the isolate "
               "entered)",
               isolate_);
  }
  if (open_scopes_ > 0) {
    // Deleted inside its own callback: the open scopes outlive it.
    if (RuntimeImpl* runtime = LiveRuntime(isolate_, runtime_generation_))
      runtime->OrphanHostResource(this);
  }
  EmitDestroy();
}

void AsyncResource::EmitDestroy() {
  if (destroyed_ || isolate_ == nullptr)
    return;
  destroyed_ = true;
  // The runtime may be gone (the host tore it down first); then no hook can
  // observe the destroy anyway.
  RuntimeImpl* runtime = LiveRuntime(isolate_, runtime_generation_);
  if (runtime == nullptr)
    return;
  v8::HandleScope handle_scope(isolate_);
  ContextState* state = ContextState::Find(runtime, frame_.context());
  if (state != nullptr && state->HasHooks(kHookDestroy)) {
    runtime->QueueDestroy(state, async_id_);
  }
}

v8::Local<v8::Object> AsyncResource::resource() const {
  return resource_.Get(isolate_);
}

v8::Local<v8::Context> AsyncResource::context() const {
  return frame_.context();
}

v8::Local<v8::Value> AsyncResource::frame() const {
  return frame_.frame();
}

}  // namespace asyncctx
