// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The runtime's side of the batched destroy hooks (each context's ids wait
// in a DestroyQueue, src/destroy_queue.h): queueing ids, posting the task
// that emits them, the bounded-batch flush, and the emission itself.

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "asyncctx/callback_scope.h"
#include "src/context_state.h"
#include "src/external_references.h"
#include "src/frame.h"
#include "src/js_bindings.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"

namespace asyncctx {
namespace internal {

void RuntimeImpl::QueueDestroy(ContextState* state,
                               double async_id,
                               bool from_javascript) {
  bool full = state->destroys.Push(async_id);
  MarkDestroyPending(state);
  PostDestroyTask();
  if (!full || !from_javascript || state->destroy_flush_queued)
    return;
  // A long chain of microtasks never yields to the task: emit this batch
  // from a microtask queued now, as Node.js does.
  QueueDestroyFlush(state);
}

void RuntimeImpl::QueueDestroyFromGC(ContextState* state, double async_id) {
  bool full = state->destroys.Push(async_id);
  MarkDestroyPending(state);
  // Posting only queues a task (RuntimeOptions::post_task says so).
  PostDestroyTask();
  if (!full || state->destroy_flush_queued || destroy_interrupt_requested_)
    return;
  // No microtask can be queued from the GC: Node.js requests an interrupt,
  // which queues it as soon as JavaScript runs again. The weak reference
  // makes an interrupt that runs after the runtime is gone do nothing (and
  // one that never runs costs this small allocation).
  destroy_interrupt_requested_ = true;
  isolate()->RequestInterrupt(&OnDestroyInterrupt,
                              new std::weak_ptr<RuntimeImpl*>(alive_));
}

void RuntimeImpl::OnDestroyInterrupt(v8::Isolate* isolate, void* data) {
  std::unique_ptr<std::weak_ptr<RuntimeImpl*>> weak(
      static_cast<std::weak_ptr<RuntimeImpl*>*>(data));
  std::shared_ptr<RuntimeImpl*> alive = weak->lock();
  if (alive == nullptr)
    return;
  RuntimeImpl* runtime = *alive;
  runtime->destroy_interrupt_requested_ = false;
  v8::HandleScope handle_scope(isolate);
  // Only states with queued destroys can be full. QueueDestroyFlush runs
  // no JavaScript, but it allocates, and a GC there may add a state to the
  // list (QueueDestroyFromGC) or take a collected one off it: walked by
  // index, its size read each time (a state taken off before `i` can make
  // the walk skip one, whose batch then waits for the destroy task).
  std::vector<ContextState*>& pending = runtime->destroy_pending_;
  for (size_t i = 0; i < pending.size(); i++) {
    ContextState* state = pending[i];
    if (state->destroys.full() && !state->destroy_flush_queued)
      runtime->QueueDestroyFlush(state);
  }
}

void RuntimeImpl::MarkDestroyPending(ContextState* state) {
  if (state->destroy_pending)
    return;
  state->destroy_pending = true;
  destroy_pending_.push_back(state);
}

void RuntimeImpl::UnmarkDestroyPending(ContextState* state) {
  if (!state->destroy_pending)
    return;
  state->destroy_pending = false;
  destroy_pending_.erase(
      std::find(destroy_pending_.begin(), destroy_pending_.end(), state));
}

DestroyTracker* RuntimeImpl::TrackerFor(ContextState* state) {
  if (state->destroy_tracker == nullptr) {
    trackers_.push_back(std::make_unique<DestroyTracker>(state));
    state->destroy_tracker = trackers_.back().get();
  }
  return state->destroy_tracker;
}

void RuntimeImpl::DetachTracker(ContextState* state) {
  if (state->destroy_tracker != nullptr) {
    state->destroy_tracker->Detach();
    state->destroy_tracker = nullptr;
  }
  // Only handle resets happen here (a first-pass weak callback may call
  // this), and an empty tracker resets none.
  trackers_.erase(
      std::remove_if(trackers_.begin(), trackers_.end(),
                     [](const std::unique_ptr<DestroyTracker>& tracker) {
                       return tracker->detached() && tracker->size() == 0;
                     }),
      trackers_.end());
}

void RuntimeImpl::QueueDestroyFlush(ContextState* state) {
  v8::Isolate* isolate = this->isolate();
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = state->context.Get(isolate);
  v8::Local<v8::Object> holder = state->holder.Get(isolate);
  if (context.IsEmpty() || holder.IsEmpty())
    return;
  v8::Local<v8::Function> flush;
  if (!NewNativeFunction(context, FlushDestroysMicrotask, holder, 0)
           .ToLocal(&flush)) {
    return;
  }
  state->destroy_flush_queued = true;
  context->GetMicrotaskQueue()->EnqueueMicrotask(isolate, flush);
}

void RuntimeImpl::FlushDestroysMicrotask(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  ContextState* state = BindingState(info);
  if (state == nullptr)
    return;
  state->destroy_flush_queued = false;
  BusyScope busy(state->runtime);
  v8::Isolate* isolate = info.GetIsolate();
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = state->context.Get(isolate);
  // A microtask between two jobs of a checkpoint: the slot is left as the
  // checkpoint had it, not at the root frame the batch's TaskScope puts
  // back (on V8 10.2 the thenable repair tells a reaction V8 entered the
  // root for from a thenable job by it: src/js/thenable_repair.js).
  v8::Local<v8::Value> frame;
  if (!context.IsEmpty())
    frame = CurrentFrame(context);
  state->runtime->EmitDestroyBatch(state);
  if (!frame.IsEmpty() && !isolate->IsExecutionTerminating())
    compat::SetContinuationData(isolate, context, frame);
}

void RuntimeImpl::PostDestroyTask() {
  if (destroy_task_posted_)
    return;
  std::weak_ptr<RuntimeImpl*> weak = alive_;
  auto task = [weak]() {
    if (auto alive = weak.lock()) {
      (*alive)->destroy_task_posted_ = false;
      (*alive)->EmitPendingDestroys();
    }
  };
  if (options_.post_task) {
    destroy_task_posted_ = true;
    options_.post_task(std::move(task));
  } else if (options_.platform != nullptr) {
    class LambdaTask : public v8::Task {
     public:
      explicit LambdaTask(std::function<void()> fn) : fn_(std::move(fn)) {}
      void Run() override { fn_(); }

     private:
      std::function<void()> fn_;
    };
    destroy_task_posted_ = true;
    options_.platform->GetForegroundTaskRunner(isolate())->PostTask(
        std::make_unique<LambdaTask>(std::move(task)));
  }
  // Without a platform or poster, the host calls EmitPendingDestroys().
}

void RuntimeImpl::EmitPendingDestroys() {
  // Every checkpoint of a host that checkpoints by itself comes here: only
  // the states with queued destroys are walked (not every installed
  // context), in install order, as a walk of all of them would.
  if (destroy_pending_.empty())
    return;
  BusyScope busy(this);
  v8::HandleScope handle_scope(isolate());
  // Hooks may queue more destroys (which put their states on the list
  // again), install contexts or let the GC collect one: walk a copy of the
  // list, each state taken off it before its batch, and walk again while
  // the hooks put states on it (Node.js loops until its list is empty).
  // Two buffers change places (no allocation once both have grown); a
  // nested call (a hook's host calling EmitPendingDestroys) gets an empty
  // one of its own.
  std::vector<ContextState*> states = std::move(destroy_pending_scratch_);
  destroy_pending_scratch_ = std::vector<ContextState*>();
  v8::Isolate* isolate = this->isolate();
  while (!destroy_pending_.empty() && !isolate->IsExecutionTerminating()) {
    states.clear();
    states.swap(destroy_pending_);
    std::sort(
        states.begin(), states.end(),
        [](ContextState* a, ContextState* b) { return a->serial < b->serial; });
    for (ContextState* state : states)
      state->destroy_pending = false;
    for (ContextState* state : states) {
      if (!IsLive(state))
        continue;
      EmitDestroyBatch(state);
      // A batch cut short (the isolate terminating) keeps its ids: back on
      // the list, for the next walk. (The batch held its context, so the
      // state is still live.)
      if (!state->destroys.empty())
        MarkDestroyPending(state);
    }
  }
  states.clear();
  if (states.capacity() > destroy_pending_scratch_.capacity())
    destroy_pending_scratch_ = std::move(states);
}

void RuntimeImpl::EmitDestroyBatch(ContextState* state) {
  if (state->destroys.empty())
    return;
  v8::Isolate* isolate = this->isolate();
  // Nothing can run now (not even the layer's lookup of its emitter): the
  // ids wait for the next emission.
  if (isolate->IsExecutionTerminating() && !state->context.IsEmpty())
    return;
  std::vector<double> ids;
  if (state->context.IsEmpty()) {
    state->destroys.TakeInto(&ids);
    return;
  }
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = state->context.Get(isolate);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Function> emit =
      state->LayerFunction(context, &ContextState::emit_destroy_batch);
  if (emit.IsEmpty()) {
    state->destroys.TakeInto(&ids);
    return;
  }
  // A task of its own, as Node.js runs its destroy hooks: at the root frame,
  // with execution and trigger ids 0, so that neither the code that queued
  // the ids nor an enterWith() in one hook reaches the next task. The
  // checkpoint is left to whoever runs the batch (a microtask may).
  TaskScope task_scope(context, CallbackScope::Checkpoint::kSkip);
  // Destroys emitted by the hooks themselves join this batch, before any
  // microtask runs (Node.js loops until its list is empty).
  while (!state->destroys.empty() && !isolate->IsExecutionTerminating()) {
    state->destroys.TakeInto(&ids);
    // A packed array made from its elements: no index store that a setter
    // on Array.prototype could observe.
    std::vector<v8::Local<v8::Value>> elements;
    elements.reserve(ids.size());
    for (double id : ids)
      elements.push_back(v8::Number::New(isolate, id));
    v8::Local<v8::Value> argv[] = {
        v8::Array::New(isolate, elements.data(), elements.size())};
    v8::TryCatch try_catch(isolate);
    (void)emit->Call(context, v8::Undefined(isolate), 1, argv).IsEmpty();
  }
}

}  // namespace internal
}  // namespace asyncctx
