// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/context_state.h"

#include "src/isolate_teardown.h"

#include "src/errors.h"
#include "src/layer_contract.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"

namespace asyncctx {
namespace internal {

void ContextState::AbandonHandles() {
  for (v8::Global<v8::Function>* function :
       {&layer_function, &emit_init, &emit_before, &emit_after,
        &emit_destroy_batch, &refresh_promise_hooks, &frame_with, &frame_lookup,
        &invalid_arg_type, &make_node_error, &reset_after_termination,
        &als_get_store, &variable_get}) {
    AbandonGlobal(function);
  }
  for (v8::Global<v8::Value>* value : {&frame_missing, &root_frame})
    AbandonGlobal(value);
  for (v8::Global<v8::Module>* module :
       {&async_hooks_module, &diagnostics_channel_module}) {
    AbandonGlobal(module);
  }
  AbandonGlobal(&context);
  AbandonGlobal(&holder);
  AbandonGlobal(&hook_buffer);
  AbandonGlobal(&resources);
}

namespace {

// The address stored in kContextSlotTag.
void* ContextTag() {
  alignas(8) static const char tag = 0;
  return const_cast<char*>(&tag);
}

}  // namespace

ContextState* ContextState::Find(v8::Local<v8::Context> context,
                                 int embedder_index) {
  if (context.IsEmpty())
    return nullptr;
  // A context that was never installed has fewer fields, or no tag.
  if (context->GetNumberOfEmbedderDataFields() <=
          static_cast<uint32_t>(embedder_index + kContextSlotTag) ||
      compat::GetEmbedderPointer(context, embedder_index + kContextSlotTag) !=
          ContextTag()) {
    return nullptr;
  }
  return static_cast<ContextState*>(
      compat::GetEmbedderPointer(context, embedder_index + kContextSlotState));
}

ContextState* ContextState::Find(const RuntimeImpl* runtime,
                                 v8::Local<v8::Context> context) {
  if (runtime == nullptr)
    return nullptr;
  ContextState* state =
      Find(context, runtime->options().context_embedder_index);
  return state != nullptr && state->runtime == runtime ? state : nullptr;
}

ContextState* ContextState::FindOrDie(const RuntimeImpl* runtime,
                                      v8::Local<v8::Context> context,
                                      const char* api) {
  if (context.IsEmpty())
    FatalUsage(api, "the context is empty");
  ContextState* state = Find(runtime, context);
  if (state == nullptr) {
    FatalUsage(api,
               "asyncctx is not installed in this context (call "
               "Runtime::Install() first)");
  }
  return state;
}

v8::Local<v8::Function> ContextState::LayerFunction(
    v8::Local<v8::Context> context,
    v8::Global<v8::Function> ContextState::*member) {
  v8::Global<v8::Function>* slot = &(this->*member);
  v8::Isolate* isolate = runtime->isolate();
  // The common case, on the hooks' and frames' paths: read before.
  if (!slot->IsEmpty())
    return slot->Get(isolate);
  const char* name = nullptr;
#define ASYNCCTX_LAYER_FUNCTION_NAME(js_name, module, field) \
  if (member == &ContextState::field)                        \
    name = #js_name;
  ASYNCCTX_LAYER_FUNCTIONS(ASYNCCTX_LAYER_FUNCTION_NAME)
#undef ASYNCCTX_LAYER_FUNCTION_NAME
  if (name == nullptr) {
    FatalUsage("ContextState::LayerFunction",
               "the member is not a function of ASYNCCTX_LAYER_FUNCTIONS");
  }
  // internals.layerFunction(name) (src/js/install.js).
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Function> get =
      LayerFunction(context, &layer_function, "layerFunction");
  v8::Local<v8::String> key;
  if (get.IsEmpty() || !v8::String::NewFromUtf8(isolate, name).ToLocal(&key))
    return {};
  v8::Local<v8::Value> argv[] = {key};
  v8::Local<v8::Value> function;
  if (!get->Call(context, v8::Undefined(isolate), 1, argv).ToLocal(&function) ||
      !function->IsFunction()) {
    return {};
  }
  slot->Reset(isolate, function.As<v8::Function>());
  slot->SetWeak();
  return handle_scope.Escape(function.As<v8::Function>());
}

v8::Local<v8::Function> ContextState::LayerFunction(
    v8::Local<v8::Context> context,
    v8::Global<v8::Function>* slot,
    const char* name) {
  v8::Isolate* isolate = runtime->isolate();
  if (!slot->IsEmpty())
    return slot->Get(isolate);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Local<v8::Value> layer = context->GetEmbedderData(
      runtime->options().context_embedder_index + kContextSlotLayer);
  v8::Local<v8::String> key;
  v8::Local<v8::Value> function;
  if (!layer->IsObject() ||
      !v8::String::NewFromUtf8(isolate, name).ToLocal(&key) ||
      !layer.As<v8::Object>()->Get(context, key).ToLocal(&function) ||
      !function->IsFunction()) {
    return {};
  }
  slot->Reset(isolate, function.As<v8::Function>());
  slot->SetWeak();
  return handle_scope.Escape(function.As<v8::Function>());
}

void ContextState::Attach(v8::Local<v8::Context> context,
                          int embedder_index,
                          v8::Local<v8::Value> layer) {
  context->SetEmbedderData(embedder_index + kContextSlotLayer, layer);
  compat::SetEmbedderPointer(context, embedder_index + kContextSlotState, this);
  compat::SetEmbedderPointer(context, embedder_index + kContextSlotTag,
                             ContextTag());
}

void ContextState::Detach(v8::Local<v8::Context> context, int embedder_index) {
  compat::SetEmbedderPointer(context, embedder_index + kContextSlotState,
                             nullptr);
  compat::SetEmbedderPointer(context, embedder_index + kContextSlotTag,
                             nullptr);
}

}  // namespace internal
}  // namespace asyncctx
