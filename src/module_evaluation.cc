// Copyright 2026 the asyncctx authors. All rights reserved.
//
// EvaluateModule (include/asyncctx/module.h): Module::Evaluate with the root
// frame current, through the one frame entry of src/frame.h.

#include "asyncctx/module.h"
#include "src/errors.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this function is built on

v8::MaybeLocal<v8::Value> EvaluateModule(v8::Local<v8::Context> context,
                                         v8::Local<v8::Module> module) {
  if (context.IsEmpty())
    FatalUsage("EvaluateModule", "the context is empty");
  if (module.IsEmpty())
    FatalUsage("EvaluateModule", "the module is empty");
  v8::Isolate* isolate = compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  v8::Context::Scope context_scope(context);
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  ContextState* state = ContextState::Find(runtime, context);
  if (state == nullptr) {
    ThrowError(isolate,
               "asyncctx: EvaluateModule() needs a context in which "
               "Runtime::Install() succeeded");
    return {};
  }
  v8::Global<v8::Value> previous;
  EnterFrameSavingPrevious(runtime, state, context, RootFrame(isolate, state),
                           FrameRestore::kPrevious, &previous);
  v8::MaybeLocal<v8::Value> result = module->Evaluate(context);
  // Evaluation runs JavaScript, which may have destroyed the runtime.
  RestorePreviousFrame(
      isolate, ContextState::Find(RuntimeRegistry::Find(isolate), context),
      context, &previous);
  v8::Local<v8::Value> value;
  if (!result.ToLocal(&value))
    return {};
  return handle_scope.Escape(value);
}

}  // namespace asyncctx
