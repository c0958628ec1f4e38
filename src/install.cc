// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Runtime::Install, in stages: check that the context can be installed,
// make its state and the native binding, run the JavaScript layer with the
// binding, define the globals the host asked for (each made on first use),
// and last, adopt the state (which makes the context installed). All or
// nothing: a stage that fails undoes what the stages before it did (the
// absl::Cleanups below), and leaves nothing that refers to the state, which is
// freed on return.

#include <iterator>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "src/code_cache.h"
#include "src/context_state.h"
#include "src/errors.h"
#include "src/external_references.h"
#include "src/js_bindings.h"
#include "src/js_sources.h"
#include "src/layer_contract.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "src/v8_string.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-script.h"

namespace asyncctx {
namespace internal {

namespace {

// Compiles the JavaScript layer from `source` and calls it with `binding`;
// captures the layer's values in `state`, and returns its exports and
// internals.
v8::Maybe<bool> RunJavaScriptLayer(v8::Local<v8::Context> context,
                                   v8::Local<v8::String> source,
                                   bool use_code_cache,
                                   ContextState* state,
                                   v8::Local<v8::Object> binding,
                                   v8::Local<v8::Array> stack_views,
                                   v8::Local<v8::Object>* exports_out,
                                   v8::Local<v8::Object>* internals_out) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  // Compile the JavaScript layer (src/js, linked into one script by
  // tools/js2c.py) and call it with the binding.
  v8::ScriptOrigin origin = compat::MakeScriptOrigin(
      isolate, Str(isolate, internal::kAsyncctxScriptName));
  // With the process-wide code cache (src/code_cache.h) when there is one.
  LayerCompilation compilation;
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> factory;
  v8::Local<v8::Value> argv[] = {binding};
  v8::Local<v8::Value> layer_value;
  if (!LayerCompilation::Compile(context, source, origin, use_code_cache,
                                 &compilation)
           .ToLocal(&script) ||
      !script->Run(context).ToLocal(&factory) || !factory->IsFunction() ||
      !factory.As<v8::Function>()
           ->Call(context, v8::Undefined(isolate), 1, argv)
           .ToLocal(&layer_value) ||
      !layer_value->IsObject()) {
    return v8::Nothing<bool>();
  }
  // After the run, so that the cache holds the functions it compiled.
  compilation.ProduceIfNeeded(script);
  v8::Local<v8::Object> layer = layer_value.As<v8::Object>();
  v8::Local<v8::Value> exports_value;
  v8::Local<v8::Value> internals_value;
  if (!layer->Get(context, Str(isolate, "exports")).ToLocal(&exports_value) ||
      !layer->Get(context, Str(isolate, "internals"))
           .ToLocal(&internals_value) ||
      !exports_value->IsObject() || !internals_value->IsObject()) {
    return v8::Nothing<bool>();
  }
  v8::Local<v8::Object> exports = exports_value.As<v8::Object>();
  v8::Local<v8::Object> internals = internals_value.As<v8::Object>();
  // The context keeps the shared stack views alive (the runtime holds them
  // weakly): through its layer, under a private key.
  if (internals->SetPrivate(context, v8::Private::New(isolate), stack_views)
          .IsNothing()) {
    return v8::Nothing<bool>();
  }

  // The functions of ASYNCCTX_LAYER_FUNCTIONS are read at their first use
  // (ContextState::LayerFunction), which runs their modules then.
  v8::Local<v8::Value> resources;
  if (!internals->Get(context, Str(isolate, "resources")).ToLocal(&resources) ||
      !resources->IsArray()) {
    ThrowError(isolate, "asyncctx: internal error: bad JavaScript layer");
    return v8::Nothing<bool>();
  }
  state->resources.Reset(isolate, resources.As<v8::Array>());
  state->resources.SetWeak();
  v8::Local<v8::Value> root_frame;
  v8::Local<v8::Value> frame_missing;
  if (!internals->Get(context, Str(isolate, "rootFrame"))
           .ToLocal(&root_frame) ||
      !internals->Get(context, Str(isolate, "frameMissing"))
           .ToLocal(&frame_missing)) {
    return v8::Nothing<bool>();
  }
  state->root_frame.Reset(isolate, root_frame);
  state->root_frame.SetWeak();
  state->frame_missing.Reset(isolate, frame_missing);
  state->frame_missing.SetWeak();
  *exports_out = exports;
  *internals_out = internals;
  return v8::Just(true);
}

// Defines the globals `install_options` asks for, all or none: a global
// that cannot be defined (an interceptor that throws, a read-only or
// non-configurable property, a frozen global) undoes the ones defined
// before it. False with an exception pending on failure.
//
// `exports` holds the layer's function that makes each global's value. A
// global is defined as a data property first (so it fails, and reaches the
// global's interceptors, exactly as a plain definition does), then turned
// into a lazy data property (v8::Object::SetLazyDataProperty): V8 calls
// MakeLazyGlobal, and with it that function, at the first read, and replaces
// the property with a data property holding the value, with the same
// attributes. A lazy data property is a data property to every reflection
// (its descriptor is {value, writable, configurable}, and a write or a
// defineProperty replaces it), so the difference shows only in when the
// layer's module for it runs. Where the definition went to an interceptor
// instead of the global object itself, the value is made at once.
bool DefineGlobals(v8::Local<v8::Context> context,
                   v8::Local<v8::Object> exports,
                   const InstallOptions& install_options,
                   v8::Local<v8::Object> internals) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::Local<v8::Object> global = context->Global();
  const std::pair<const std::string*, const char*> globals[] = {
      {&install_options.async_local_storage, "AsyncLocalStorage"},
      {&install_options.async_resource, "AsyncResource"},
      {&install_options.queue_microtask, "queueMicrotask"},
      {&install_options.async_context, "AsyncContext"},
      {&install_options.async_hooks, "asyncHooks"},
      {&install_options.diagnostics_channel, "diagnosticsChannel"},
  };
  v8::Local<v8::String> defined[std::size(globals)];
  size_t defined_count = 0;
  absl::Cleanup undo_globals = [&] {
    v8::TryCatch undo(isolate);
    for (size_t i = 0; i < defined_count; i++)
      (void)global->Delete(context, defined[i]).IsNothing();
  };
  for (const auto& [name, export_name] : globals) {
    if (name->empty())
      continue;
    v8::Local<v8::Value> make;
    v8::Local<v8::String> key;
    bool ok = exports->Get(context, Str(isolate, export_name)).ToLocal(&make) &&
              v8::String::NewFromUtf8(isolate, name->c_str(),
                                      v8::NewStringType::kInternalized,
                                      static_cast<int>(name->size()))
                  .ToLocal(&key);
    if (ok && !make->IsFunction()) {
      ThrowError(isolate, "asyncctx: internal error: bad JavaScript layer");
      return false;
    }
    bool defined_it = false;
    if (ok) {
      v8::TryCatch try_catch(isolate);
      v8::Maybe<bool> result =
          global->DefineOwnProperty(context, key, v8::Undefined(isolate),
                                    v8::PropertyAttribute::DontEnum);
      if (result.IsJust() && result.FromJust()) {
        v8::Maybe<bool> own = global->HasRealNamedProperty(context, key);
        v8::Local<v8::Value> value;
        if (own.IsNothing()) {
          result = own;
        } else if (own.FromJust()) {
          CheckExternalReference(reinterpret_cast<intptr_t>(&MakeLazyGlobal));
          result =
              global->SetLazyDataProperty(context, key, MakeLazyGlobal, make,
                                          v8::PropertyAttribute::DontEnum);
        } else if (make.As<v8::Function>()
                       ->Call(context, v8::Undefined(isolate), 0, nullptr)
                       .ToLocal(&value)) {
          result = global->DefineOwnProperty(context, key, value,
                                             v8::PropertyAttribute::DontEnum);
        } else {
          result = v8::Nothing<bool>();
        }
        // Counted as defined from the first definition on, so that a
        // failure of the second is undone too.
        defined[defined_count++] = key;
      }
      if (result.IsNothing()) {
        ok = false;
        try_catch.ReThrow();
      } else {
        defined_it = result.FromJust();
      }
    }
    if (ok && !defined_it) {
      ok = false;
      std::string message =
          "asyncctx: Runtime::Install(): cannot define the global '" + *name +
          "'";
      ThrowError(isolate, message.c_str());
    }
    if (!ok)
      return false;
  }
  // Last: it is all or nothing itself (src/js/finalization_registry.js).
  if (install_options.finalization_registry_context) {
    // Read from `internals` itself: the context is not attached yet.
    v8::Local<v8::Value> install;
    if (!internals->Get(context, Str(isolate, "installFinalizationRegistry"))
             .ToLocal(&install)) {
      return false;
    }
    if (!install->IsFunction()) {
      ThrowError(isolate, "asyncctx: internal error: bad JavaScript layer");
      return false;
    }
    v8::Local<v8::Value> argv[] = {global};
    if (install.As<v8::Function>()
            ->Call(context, v8::Undefined(isolate), 1, argv)
            .IsEmpty()) {
      return false;
    }
  }
  std::move(undo_globals).Cancel();
  return true;
}

}  // namespace

v8::MaybeLocal<v8::Array> RuntimeImpl::StackViews() {
  v8::Isolate* isolate = this->isolate();
  v8::EscapableHandleScope handle_scope(isolate);
  if (stack_views_.IsEmpty()) {
    // A context of the runtime's own, so that no installed context keeps
    // the views (and with them, its own native context) alive. Nothing runs
    // in it. The installed contexts keep the views (and this context) alive;
    // the runtime holds them weakly, so that a live Runtime leaves no strong
    // handle that would stop a v8::SnapshotCreator (see
    // include/asyncctx/snapshot.h).
    v8::Local<v8::Context> views_context = v8::Context::New(isolate);
    v8::Local<v8::Array> views;
    if (views_context.IsEmpty() ||
        !NewStackViews(views_context, stack_store_).ToLocal(&views)) {
      return {};
    }
    stack_views_.Reset(isolate, views);
    stack_views_.SetWeak();
  }
  return handle_scope.Escape(stack_views_.Get(isolate));
}

v8::MaybeLocal<v8::Array> RuntimeImpl::LayerTables(
    v8::Local<v8::Array> stack_views) {
  v8::Isolate* isolate = this->isolate();
  v8::EscapableHandleScope handle_scope(isolate);
  if (layer_tables_.IsEmpty()) {
    v8::Local<v8::Context> views_context;
    v8::Local<v8::Array> tables;
    if (!compat::CreationContextOf(isolate, stack_views)
             .ToLocal(&views_context) ||
        !NewLayerTables(views_context).ToLocal(&tables)) {
      return {};
    }
    layer_tables_.Reset(isolate, tables);
    layer_tables_.SetWeak();
  }
  return handle_scope.Escape(layer_tables_.Get(isolate));
}

namespace {

// The layer's bytes (static, ASCII: tools/js2c.py checks) as the contents of
// an external one-byte string: V8 reads them in place.
class LayerSourceResource : public v8::String::ExternalOneByteStringResource {
 public:
  const char* data() const override { return internal::kAsyncctxSource; }
  size_t length() const override { return internal::kAsyncctxSourceLength; }
  // The resource is static: nothing to free when V8 drops a string.
  void Dispose() override {}
};

}  // namespace

v8::Local<v8::FunctionTemplate> RuntimeImpl::BindingTemplate(size_t index) {
  v8::Isolate* isolate = this->isolate();
  v8::EscapableHandleScope handle_scope(isolate);
  if (binding_templates_.size() < kBindingFunctionCount)
    binding_templates_.resize(kBindingFunctionCount);
  v8::Global<v8::FunctionTemplate>& slot = binding_templates_[index];
  if (slot.IsEmpty()) {
    const BindingFunction& binding = kBindingFunctions[index];
    CheckExternalReference(reinterpret_cast<intptr_t>(binding.callback));
    slot.Reset(isolate, v8::FunctionTemplate::New(
                            isolate, binding.callback, v8::Local<v8::Value>(),
                            v8::Local<v8::Signature>(), binding.length,
                            v8::ConstructorBehavior::kThrow));
    slot.SetWeak();
  }
  return handle_scope.Escape(slot.Get(isolate));
}

v8::MaybeLocal<v8::String> RuntimeImpl::LayerSource() {
  v8::Isolate* isolate = this->isolate();
  v8::EscapableHandleScope handle_scope(isolate);
  if (layer_source_.IsEmpty()) {
    static LayerSourceResource* const resource = new LayerSourceResource();
    v8::Local<v8::String> source;
    if (!v8::String::NewExternalOneByte(isolate, resource).ToLocal(&source))
      return {};
    layer_source_.Reset(isolate, source);
    layer_source_.SetWeak();
  }
  return handle_scope.Escape(layer_source_.Get(isolate));
}

bool RuntimeImpl::CheckInstallable(v8::Local<v8::Context> context) const {
  v8::Isolate* isolate = this->isolate();
  v8::MicrotasksPolicy policy = isolate->GetMicrotasksPolicy();
  if (policy == v8::MicrotasksPolicy::kScoped) {
    // kScoped runs promise jobs when the host's MicrotasksScope closes,
    // possibly with JavaScript of the isolate still running.
    ThrowError(isolate,
               "asyncctx: Runtime::Install(): the isolate's microtasks policy "
               "must not be v8::MicrotasksPolicy::kScoped (use kExplicit, or "
               "kAuto with RuntimeOptions::host_checkpoints)");
    return false;
  }
  if (policy != v8::MicrotasksPolicy::kExplicit && !options_.host_checkpoints) {
    // kAuto runs promise jobs inside callback scopes, before `after` and the
    // frame restore.
    ThrowError(isolate,
               "asyncctx: Runtime::Install(): the isolate's microtasks policy "
               "must be v8::MicrotasksPolicy::kExplicit (asyncctx runs the "
               "checkpoints itself), or kAuto with "
               "RuntimeOptions::host_checkpoints");
    return false;
  }
  if (IsInstalled(context)) {
    ThrowError(isolate,
               "asyncctx: Runtime::Install() was already called for this "
               "context");
    return false;
  }
  return true;
}

std::unique_ptr<ContextState> RuntimeImpl::NewContextState() {
  auto state = std::make_unique<ContextState>();
  state->runtime = this;
  // Hook fields, then the runtime's per-context fields, in one block.
  constexpr int kFieldCount =
      static_cast<int>(kHookFieldCount) + static_cast<int>(kContextFieldCount);
  state->hook_store =
      v8::ArrayBuffer::NewBackingStore(isolate(), kFieldCount * sizeof(double));
  state->hook_fields = static_cast<double*>(state->hook_store->Data());
  state->context_fields = state->hook_fields + kHookFieldCount;
  for (int i = 0; i < kFieldCount; i++)
    state->hook_fields[i] = 0;
  state->context_fields[kContextThenableRepair] =
      options_.thenable_repair ? 1 : 0;
  state->context_fields[kContextHostCheckpoints] =
      options_.host_checkpoints ? 1 : 0;
  state->context_fields[kContextMarkedCheckpoint] = -1;
  return state;
}

void RuntimeImpl::AdoptState(v8::Local<v8::Context> context,
                             std::unique_ptr<ContextState> owned_state,
                             v8::Local<v8::Object> holder,
                             v8::Local<v8::Object> internals) {
  v8::Isolate* isolate = this->isolate();
  ContextState* state = owned_state.get();
  // The context keeps the layer alive; C++ refers to it weakly.
  state->Attach(context, options_.context_embedder_index, internals);
  state->holder.Reset(isolate, holder);
  state->holder.SetWeak();
  state->context.Reset(isolate, context);
  state->context.SetWeak(state, OnContextCollected,
                         v8::WeakCallbackType::kParameter);
  state->serial = next_state_serial_++;
  state->microtask_queue = context->GetMicrotaskQueue();
  RegisterMicrotaskQueue(state->microtask_queue);
  states_.emplace(state, std::move(owned_state));
}

v8::Maybe<bool> RuntimeImpl::Install(v8::Local<v8::Context> context,
                                     const InstallOptions& install_options) {
  v8::Isolate* isolate = this->isolate();
  if (context.IsEmpty() || compat::IsolateOf(context) != isolate) {
    FatalUsage("Runtime::Install", "the context belongs to another isolate");
  }
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  if (!CheckInstallable(context))
    return v8::Nothing<bool>();

  std::unique_ptr<ContextState> owned_state = NewContextState();
  ContextState* state = owned_state.get();
  v8::Local<v8::Array> stack_views;
  v8::Local<v8::Array> layer_tables;
  v8::Local<v8::String> source;
  v8::Local<v8::Object> holder;
  v8::Local<v8::Object> binding;
  if (!StackViews().ToLocal(&stack_views) ||
      !LayerTables(stack_views).ToLocal(&layer_tables) ||
      !LayerSource().ToLocal(&source) ||
      !NewBindingHolder(context, state).ToLocal(&holder) ||
      !NewBindingObject(context, state, holder, stack_views, layer_tables)
           .ToLocal(&binding)) {
    return v8::Nothing<bool>();
  }
  // Every failure from here on leaves JavaScript holding the binding: detach
  // it so that nothing reaches `state` after it is freed, and take the state
  // off the runtime's list of pending destroys (code that ran during the
  // install may have queued one).
  absl::Cleanup detach_on_failure = [this, holder, state] {
    DetachBindingHolder(holder);
    UnmarkDestroyPending(state);
  };

  v8::Local<v8::Object> exports;
  v8::Local<v8::Object> internals;
  if (RunJavaScriptLayer(context, source, install_options.code_cache, state,
                         binding, stack_views, &exports, &internals)
          .IsNothing()) {
    return v8::Nothing<bool>();
  }
  if (!DefineGlobals(context, exports, install_options, internals)) {
    context->SetPromiseHooks({}, {}, {}, {});
    return v8::Nothing<bool>();
  }

  std::move(detach_on_failure).Cancel();
  AdoptState(context, std::move(owned_state), holder, internals);
  // The root as a frame object, so that V8 captures it for the jobs queued
  // from here on (see src/js/frames.js).
  compat::SetContinuationData(isolate, context, state->root_frame.Get(isolate));
  return v8::Just(true);
}

}  // namespace internal
}  // namespace asyncctx
