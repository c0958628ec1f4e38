// Copyright 2026 the asyncctx authors. All rights reserved.

#include "asyncctx/context_key.h"

#include <utility>

#include "src/errors.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

ContextKey::ContextKey(v8::Local<v8::Context> context, const char* name)
    : isolate_(compat::IsolateOf(context)) {
  RuntimeImpl* runtime = RuntimeRegistry::FindOrDie(isolate_, "ContextKey");
  ContextState::FindOrDie(runtime, context, "ContextKey");
  v8::HandleScope handle_scope(isolate_);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> key = v8::Object::New(isolate_);
  v8::Local<v8::String> name_string;
  if (name != nullptr &&
      v8::String::NewFromUtf8(isolate_, name).ToLocal(&name_string)) {
    (void)key
        ->Set(context, v8::String::NewFromUtf8Literal(isolate_, "name"),
              name_string)
        .IsNothing();
  }
  key_.Reset(isolate_, key);
}

std::unique_ptr<ContextKey> ContextKey::FromJavaScript(
    v8::Local<v8::Context> context,
    v8::Local<v8::Value> store) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate, "ContextKey::FromJavaScript");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "ContextKey::FromJavaScript");
  if (!store->IsObject())
    return nullptr;
  v8::HandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> object = store.As<v8::Object>();
  if (object->IsProxy())
    return nullptr;
  // Recognized by brand, not by name: the original method succeeds only on
  // objects with the class's private fields (a user class put in the global,
  // or an object made with Object.create(prototype), does not).
  v8::Local<v8::Function> getter;
  const std::pair<v8::Global<v8::Function>*, const char*> candidates[] = {
      {&state->als_get_store, "storageGetStore"},
      {&state->variable_get, "variableGet"},
  };
  for (const auto& [slot, name] : candidates) {
    v8::TryCatch try_catch(isolate);
    // Read at the first use, which runs the module of its class if no
    // global has made it yet (src/js/install.js).
    v8::Local<v8::Function> method = state->LayerFunction(context, slot, name);
    if (!method.IsEmpty() &&
        !method->Call(context, object, 0, nullptr).IsEmpty()) {
      getter = method;
      break;
    }
    if (try_catch.HasTerminated()) {
      try_catch.ReThrow();
      return nullptr;
    }
  }
  if (getter.IsEmpty())
    return nullptr;
  std::unique_ptr<ContextKey> key(new ContextKey(isolate));
  key->key_.Reset(isolate, object);
  key->getter_.Reset(isolate, getter);
  return key;
}

ContextKey::~ContextKey() = default;

void ContextKey::CheckIsolate(v8::Isolate* isolate, const char* api) const {
  if (isolate != isolate_) {
    FatalUsage(api,
               "the ContextKey was made for another isolate (a key belongs "
               "to the isolate of the context it was created with)",
               isolate);
  }
}

v8::MaybeLocal<v8::Value> ContextKey::Get(
    v8::Local<v8::Context> context) const {
  CheckIsolate(compat::IsolateOf(context), "ContextKey::Get");
  v8::EscapableHandleScope handle_scope(isolate_);
  if (!getter_.IsEmpty()) {
    v8::Local<v8::Value> result;
    if (!getter_.Get(isolate_)
             ->Call(context, key_.Get(isolate_), 0, nullptr)
             .ToLocal(&result)) {
      return {};
    }
    return handle_scope.Escape(result);
  }
  v8::Local<v8::Value> value;
  ContextState* state = ContextState::FindOrDie(
      RuntimeRegistry::FindOrDie(isolate_, "ContextKey::Get"), context,
      "ContextKey::Get");
  if (!FrameLookup(state, context, CurrentFrame(context), key_.Get(isolate_),
                   &value)) {
    value = v8::Undefined(isolate_);
  }
  return handle_scope.Escape(value);
}

bool ContextKey::Has(v8::Local<v8::Context> context) const {
  CheckIsolate(compat::IsolateOf(context), "ContextKey::Has");
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Value> value;
  ContextState* state = ContextState::FindOrDie(
      RuntimeRegistry::FindOrDie(isolate_, "ContextKey::Has"), context,
      "ContextKey::Has");
  return FrameLookup(state, context, CurrentFrame(context), key_.Get(isolate_),
                     &value);
}

ContextKey::Scope::Scope(const ContextKey& key,
                         v8::Local<v8::Context> context,
                         v8::Local<v8::Value> value)
    : isolate_(compat::IsolateOf(context)) {
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate_, "ContextKey::Scope");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "ContextKey::Scope");
  key.CheckIsolate(isolate_, "ContextKey::Scope");
  enclosing_ = runtime->innermost_key_scope;
  runtime->innermost_key_scope = this;
  v8::HandleScope handle_scope(isolate_);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Value> previous = CurrentFrame(context);
  context_.Reset(isolate_, context);
  v8::Local<v8::Value> frame;
  if (!FrameWith(state, context, previous, key.key_.Get(isolate_), value)
           .ToLocal(&frame)) {
    // Only when the isolate is terminating: the frame stays as it was.
    saved_frame_.Reset(isolate_, previous);
    return;
  }
  // As ContextFrame::Scope does.
  EnterFrameSavingPrevious(runtime, state, context, frame,
                           FrameRestore::kPrevious, &saved_frame_);
}

ContextKey::Scope::~Scope() {
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate_, "ContextKey::~Scope");
  if (runtime->innermost_key_scope != this) {
    FatalUsage("ContextKey::~Scope",
               "scopes closed out of order (a ContextKey::Scope must be "
               "destroyed before every scope opened after it)",
               isolate_);
  }
  runtime->innermost_key_scope = enclosing_;
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  RestorePreviousFrame(isolate_, ContextState::Find(runtime, context), context,
                       &saved_frame_);
}

}  // namespace asyncctx
