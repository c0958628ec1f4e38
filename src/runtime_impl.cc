// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/runtime_impl.h"

#include "src/external_references.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "src/errors.h"
#include "src/frame.h"
#include "src/js_bindings.h"
#include "src/runtime_registry.h"
#include "src/v8_compat.h"
#include "src/v8_string.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-typed-array.h"

namespace asyncctx {
namespace internal {

namespace {

// Node.js exits with code 1 here; a library must not end the host's
// process, so the default stops the isolate's JavaScript instead.
void DefaultHookErrorHandler(v8::Isolate* isolate, const HookError& error) {
  std::fprintf(
      stderr, "Error thrown in async hook '%s': %s\n", error.hook_name.c_str(),
      error.stack.empty() ? error.message.c_str() : error.stack.c_str());
  std::fflush(stderr);
  isolate->TerminateExecution();
}

std::atomic<int> g_live_runtimes{0};

uint64_t NextGeneration() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

void DefaultUncaughtHandler(v8::Local<v8::Context> context,
                            v8::Local<v8::Value> exception,
                            v8::Local<v8::Message>) {
  v8::Isolate* isolate = compat::IsolateOf(context);
  std::string text = ToStdString(isolate, exception);
  if (exception->IsObject()) {
    v8::Local<v8::Value> stack;
    if (exception.As<v8::Object>()
            ->Get(context, Str(isolate, "stack"))
            .ToLocal(&stack) &&
        stack->IsString()) {
      text = ToStdString(isolate, stack);
    }
  }
  std::fprintf(stderr, "Uncaught %s\n", text.c_str());
}

}  // namespace

RuntimeImpl::RuntimeImpl(v8::Isolate* isolate, RuntimeOptions options)
    : Runtime(isolate),
      options_(std::move(options)),
      generation_(NextGeneration()),
      rejections_(isolate),
      alive_(std::make_shared<RuntimeImpl*>(this)) {
  if (compat::kV8PropagatesThenables)
    options_.thenable_repair = false;
  if (!options_.on_hook_error)
    options_.on_hook_error = DefaultHookErrorHandler;
  if (!options_.on_uncaught_exception) {
    options_.on_uncaught_exception = DefaultUncaughtHandler;
  }
  if (!options_.on_fatal_error)
    options_.on_fatal_error = DefaultFatalErrorHandler;
  g_live_runtimes.fetch_add(1, std::memory_order_relaxed);
  isolate->SetData(options_.isolate_data_slot, this);
  RuntimeRegistry::Add(isolate, this);
  CheckExternalReference(
      reinterpret_cast<intptr_t>(&IsolateTeardownWatch::HoldingListener));
  teardown_watch_.Start(isolate, OnIsolateTornDown, this);

  // V8 owns the execution stack memory from here on: the backing store's
  // deleter unmaps it once neither this runtime nor any JavaScript view
  // refers to it.
  stack_.ReleaseMemoryOwnership();
  stack_store_ = v8::ArrayBuffer::NewBackingStore(
      stack_.memory(), ExecutionStack::kMemoryBytes, ExecutionStack::FreeMemory,
      nullptr);

  // The listener is in V8's heap (a snapshot of this isolate serializes it).
  CheckExternalReference(reinterpret_cast<intptr_t>(&OnMessage));
  isolate->AddMessageListenerWithErrorLevel(
      OnMessage, v8::Isolate::kMessageError, v8::Local<v8::Value>());
  if (options_.on_unhandled_rejection) {
    isolate->SetPromiseRejectCallback(OnPromiseReject);
  }
  if (options_.host_checkpoints) {
    isolate->AddCallCompletedCallback(OnCallCompleted);
    isolate->AddBeforeCallEnteredCallback(OnBeforeCallEntered);
  }
}

void RuntimeImpl::RegisterMicrotaskQueue(v8::MicrotaskQueue* queue) {
  if (queue == nullptr)
    return;
  if (QueueUse* use = FindQueueUse(queue)) {
    use->contexts++;
    return;
  }
  static std::atomic<uint64_t> next_id{1};
  QueueUse use{next_id.fetch_add(1, std::memory_order_relaxed), queue, 1,
               false};
  microtask_queues_.push_back(use);
  queue->AddMicrotasksCompletedCallback(OnMicrotasksCompleted,
                                        CallbackData(use));
}

RuntimeImpl::QueueUse* RuntimeImpl::FindQueueUse(void* callback_data) {
  for (QueueUse& use : microtask_queues_) {
    if (CallbackData(use) == callback_data)
      return &use;
  }
  return nullptr;
}

RuntimeImpl::QueueUse* RuntimeImpl::FindQueueUse(v8::MicrotaskQueue* queue) {
  for (QueueUse& use : microtask_queues_) {
    if (use.queue == queue)
      return &use;
  }
  return nullptr;
}

int RuntimeImpl::LiveCount() {
  return g_live_runtimes.load(std::memory_order_relaxed);
}

void RuntimeImpl::OnIsolateTornDown(void* data) {
  RuntimeImpl* runtime = static_cast<RuntimeImpl*>(data);
  // Inside Isolate::Dispose: the heap's handles are being freed, so every
  // handle is emptied without V8 and only C++ memory is freed. Nothing of
  // the runtime can run any more (the host disposes an isolate it no longer
  // uses), and the registry forgets it before a new isolate can take the
  // address.
  runtime->abandoned_ = true;
  runtime->teardown_watch_.Abandon();
  AbandonGlobal(&runtime->stack_views_);
  AbandonGlobal(&runtime->layer_tables_);
  for (v8::Global<v8::FunctionTemplate>& binding : runtime->binding_templates_)
    AbandonGlobal(&binding);
  AbandonGlobal(&runtime->layer_source_);
  for (v8::Global<v8::Context>& context : runtime->deferred_drops_)
    AbandonGlobal(&context);
  for (auto& [state, owned] : runtime->states_)
    owned->AbandonHandles();
  for (const std::unique_ptr<DestroyTracker>& tracker : runtime->trackers_)
    tracker->Abandon();
  runtime->rejections_.Abandon();
  RuntimeRegistry::Remove(runtime->isolate(), runtime);
  delete runtime;
}

RuntimeImpl::~RuntimeImpl() {
  g_live_runtimes.fetch_sub(1, std::memory_order_relaxed);
  if (abandoned_)
    return;
  if (orphaned_) {
    FatalUsage("Runtime::~Runtime",
               "the Runtime's isolate was disposed before the Runtime was "
               "destroyed (destroy the Runtime first, or never)");
  }
  v8::Isolate* isolate = this->isolate();
  if (busy_ > 0 || callback_scope_depth > 0) {
    FatalUsage(
        "Runtime::~Runtime",
        "the Runtime was destroyed while it was running JavaScript (from "
        "a microtask, a hook or a callback inside RunMicrotasks, "
        "EmitPendingDestroys or a CallbackScope); destroy it from the "
        "host's event loop, with no CallbackScope open",
        isolate);
  }
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  isolate->RemoveMessageListeners(OnMessage);
  if (options_.host_checkpoints) {
    isolate->RemoveCallCompletedCallback(OnCallCompleted);
    isolate->RemoveBeforeCallEnteredCallback(OnBeforeCallEntered);
  }
  for (const QueueUse& use : microtask_queues_) {
    use.queue->RemoveMicrotasksCompletedCallback(OnMicrotasksCompleted,
                                                 CallbackData(use));
  }
  if (options_.on_unhandled_rejection) {
    isolate->SetPromiseRejectCallback(nullptr);
  }
  rejections_.Clear();
  // Detach every context that is still alive: its bindings throw from now
  // on, its promise hooks are removed, and its embedder data no longer
  // points to freed state.
  for (auto& [state, owned] : states_) {
    if (!state->holder.IsEmpty())
      DetachBindingHolder(state->holder.Get(isolate));
    // The layer's views of the hook fields read undefined from now on (and
    // a snapshot of the context copies no off-heap memory).
    if (!state->hook_buffer.IsEmpty())
      compat::DetachArrayBuffer(state->hook_buffer.Get(isolate));
    if (!state->context.IsEmpty()) {
      v8::Local<v8::Context> context = state->context.Get(isolate);
      context->SetPromiseHooks({}, {}, {}, {});
      ContextState::Detach(context, options_.context_embedder_index);
    }
  }
  states_.clear();
  destroy_pending_.clear();
  trackers_.clear();
  // The contexts keep the views of the execution-stack block alive; detach
  // them, so that nothing in V8's heap refers to the block any more. The
  // layer then reads undefined there and throws the "destroyed" error. (V8
  // 10.2 also crashes snapshotting a context with these off-heap views; see
  // include/asyncctx/snapshot.h.)
  if (!stack_views_.IsEmpty()) {
    v8::Local<v8::Array> views = stack_views_.Get(isolate);
    v8::Local<v8::Context> views_context;
    v8::Local<v8::Value> view;
    if (compat::CreationContextOf(isolate, views).ToLocal(&views_context) &&
        views->Get(views_context, 0).ToLocal(&view) &&
        view->IsArrayBufferView()) {
      compat::DetachArrayBuffer(view.As<v8::ArrayBufferView>()->Buffer());
    }
    stack_views_.Reset();
  }
  teardown_watch_.Cancel();
  RuntimeRegistry::Remove(isolate, this);
  isolate->SetData(options_.isolate_data_slot, nullptr);
}

bool RuntimeImpl::IsInstalled(v8::Local<v8::Context> context) const {
  return ContextState::Find(this, context) != nullptr;
}

void RuntimeImpl::OnContextCollected(
    const v8::WeakCallbackInfo<ContextState>& info) {
  ContextState* state = info.GetParameter();
  state->context.Reset();
  RuntimeImpl* runtime = state->runtime;
  runtime->DetachTracker(state);
  runtime->UnmarkDestroyPending(state);
  v8::MicrotaskQueue* queue = state->microtask_queue;
  runtime->states_.erase(state);
  runtime->ReleaseMicrotaskQueue(queue);
}

void RuntimeImpl::ReleaseMicrotaskQueue(v8::MicrotaskQueue* queue) {
  // The host may destroy a context's own queue once the context is gone (as
  // V8 requires): unregister while the queue is certainly alive, when its
  // last installed context is collected.
  if (queue == nullptr)
    return;
  auto it =
      std::find_if(microtask_queues_.begin(), microtask_queues_.end(),
                   [queue](const QueueUse& use) { return use.queue == queue; });
  if (it == microtask_queues_.end() || --it->contexts > 0)
    return;
  queue->RemoveMicrotasksCompletedCallback(OnMicrotasksCompleted,
                                           CallbackData(*it));
  microtask_queues_.erase(it);
}

std::vector<ContextState*> RuntimeImpl::SnapshotStates() const {
  std::vector<ContextState*> states;
  states.reserve(states_.size());
  for (const auto& [state, owned] : states_)
    states.push_back(state);
  std::sort(states.begin(), states.end(), [](ContextState* a, ContextState* b) {
    return a->serial < b->serial;
  });
  return states;
}

void RuntimeImpl::SetThenableRepair(bool enabled) {
  if (compat::kV8PropagatesThenables)
    enabled = false;
  options_.thenable_repair = enabled;
  BusyScope busy(this);
  v8::HandleScope handle_scope(isolate());
  // The refresh calls JavaScript, which may let the GC collect a context.
  for (ContextState* state : SnapshotStates()) {
    if (!IsLive(state))
      continue;
    SetContextThenableRepair(state, enabled);
  }
}

void RuntimeImpl::SetResource(ContextState* state,
                              v8::Local<v8::Context> context,
                              size_t index,
                              v8::Local<v8::Value> resource) {
  v8::Local<v8::Array> resources = state->resources.Get(isolate());
  // Only within its length, where every element exists (the JavaScript layer
  // grows it before it pushes deeper): a store past the end would look for
  // a setter on Array.prototype.
  if (resources.IsEmpty() || index >= resources->Length())
    return;
  (void)resources->Set(context, static_cast<uint32_t>(index), resource)
      .IsNothing();
}

void RuntimeImpl::OrphanHostResource(AsyncResource* resource) {
  v8::HandleScope handle_scope(isolate());
  v8::Local<v8::Context> context = resource->context();
  ContextState* state = ContextState::Find(this, context);
  size_t depth = std::min(stack_.depth(), host_resources_.size());
  for (size_t i = 0; i < depth; i++) {
    if (host_resources_[i] != resource)
      continue;
    host_resources_[i] = nullptr;
    if (state != nullptr)
      SetResource(state, context, i, resource->resource());
  }
}

size_t RuntimeImpl::TrackedResourceCount() const {
  size_t count = 0;
  for (const std::unique_ptr<DestroyTracker>& tracker : trackers_) {
    if (!tracker->detached())
      count += tracker->size();
  }
  return count;
}

}  // namespace internal
}  // namespace asyncctx
