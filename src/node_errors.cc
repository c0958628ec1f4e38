// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The public Node.js-compatible errors (include/asyncctx/errors.h), built
// by the JavaScript layer of the context (one implementation for both).

#include "asyncctx/errors.h"

#include "src/context_state.h"
#include "src/errors.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "v8-function.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

v8::MaybeLocal<v8::Object> MakeNodeError(v8::Local<v8::Context> context,
                                         ErrorType type,
                                         const char* code,
                                         const char* message) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  RuntimeImpl* runtime = RuntimeRegistry::FindOrDie(isolate, "MakeNodeError");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "MakeNodeError");
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Function> make =
      state->LayerFunction(context, &ContextState::make_node_error);
  v8::Local<v8::String> code_string;
  v8::Local<v8::String> message_string;
  if (make.IsEmpty() ||
      !v8::String::NewFromUtf8(isolate, code).ToLocal(&code_string) ||
      !v8::String::NewFromUtf8(isolate, message).ToLocal(&message_string)) {
    return {};
  }
  v8::Local<v8::Value> argv[] = {
      v8::Integer::New(isolate, static_cast<int>(type)), code_string,
      message_string};
  v8::Local<v8::Value> error;
  if (!make->Call(context, v8::Undefined(isolate), 3, argv).ToLocal(&error) ||
      !error->IsObject()) {
    return {};
  }
  return handle_scope.Escape(error.As<v8::Object>());
}

void ThrowInvalidArgType(v8::Local<v8::Context> context,
                         const char* name,
                         const char* expected,
                         v8::Local<v8::Value> actual) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  RuntimeImpl* runtime =
      RuntimeRegistry::FindOrDie(isolate, "ThrowInvalidArgType");
  ContextState* state =
      ContextState::FindOrDie(runtime, context, "ThrowInvalidArgType");
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Function> make =
      state->LayerFunction(context, &ContextState::invalid_arg_type);
  v8::Local<v8::String> name_string;
  v8::Local<v8::String> expected_string;
  if (make.IsEmpty() ||
      !v8::String::NewFromUtf8(isolate, name).ToLocal(&name_string) ||
      !v8::String::NewFromUtf8(isolate, expected).ToLocal(&expected_string)) {
    return;
  }
  v8::Local<v8::Value> argv[] = {name_string, expected_string, actual};
  v8::Local<v8::Value> error;
  if (make->Call(context, v8::Undefined(isolate), 3, argv).ToLocal(&error)) {
    isolate->ThrowException(error);
  }
}

}  // namespace asyncctx
