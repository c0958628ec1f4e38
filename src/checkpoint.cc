// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Microtask checkpoints and recovery from TerminateExecution.
//
// Runtime::RunMicrotasks is the one place that runs a checkpoint for the
// library: it starts and ends at the root frame, reports unhandled
// rejections, and notices jobs abandoned by TerminateExecution (a deeper
// execution stack after the checkpoint). RecoverFromTermination undoes what
// terminated JavaScript could not, once no JavaScript is on the stack.

#include <algorithm>

#include "src/context_state.h"
#include "src/frame.h"
#include "src/runtime_impl.h"
#include "src/v8_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"

namespace asyncctx {
namespace internal {

void RuntimeImpl::OnMicrotasksCompleted(v8::Isolate* isolate, void* data) {
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  if (runtime == nullptr)
    return;
  // Not found: released while V8 was calling the queue's callbacks (its
  // last context is gone). Not used past EndHostTask, which may call V8.
  QueueUse* use = runtime->FindQueueUse(data);
  if (use == nullptr)
    return;
  if (isolate->IsExecutionTerminating())
    runtime->checkpoint_terminated_ = true;
  // Its marker ran, or V8 dropped it with the rest.
  use->marker_queued = false;
  if (!compat::kV8PropagatesThenables) {
    // Every runner queueMicrotask's ring queued into this queue before now
    // has run or was dropped by V8 (TerminateExecution, even one a host
    // cancelled before this callback): the contexts of this queue, and only
    // they, learn it. (Where V8 keeps the data per context this is one walk
    // more of what EnterRootFrames walks per task.)
    for (const auto& [state, owned] : runtime->states_) {
      if (state->microtask_queue == use->queue)
        state->context_fields[kContextQueueCheckpoints]++;
    }
  }
  runtime->stack_.NextCheckpointGeneration();
  if (runtime->options_.host_checkpoints)
    runtime->EndHostTask(/*checkpoint_ended=*/true);
}

void RuntimeImpl::OnCallCompleted(v8::Isolate* isolate) {
  // V8 calls this with no call into JavaScript left open (and, with kAuto,
  // after the checkpoint), also when the call was terminated.
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  if (runtime != nullptr)
    runtime->EndHostTask(/*checkpoint_ended=*/false);
}

void RuntimeImpl::OnBeforeCallEntered(v8::Isolate* isolate) {
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  if (runtime == nullptr || runtime->busy_ > 0 ||
      runtime->callback_scope_depth > 0 || runtime->in_host_task_end_ ||
      isolate->IsExecutionTerminating()) {
    return;
  }
  if (!compat::kV8PropagatesThenables)
    runtime->QueueCheckpointMarkers();
  // A task ended while the isolate was terminating: the layer's reset could
  // not run then, and must before this call's JavaScript does.
  if (!runtime->checkpoint_terminated_)
    return;
  runtime->in_host_task_end_ = true;
  {
    BusyScope busy(runtime);
    runtime->RecoverFromTermination();
  }
  runtime->in_host_task_end_ = false;
}

void RuntimeImpl::QueueCheckpointMarkers() {
  // By index, and `use` is not read after the enqueue: it allocates in V8's
  // heap, and a GC may collect a queue's last context (the list shrinks).
  for (size_t i = 0; i < microtask_queues_.size(); i++) {
    QueueUse& use = microtask_queues_[i];
    if (use.marker_queued)
      continue;
    use.marker_queued = true;
    v8::MicrotaskQueue* queue = use.queue;
    queue->EnqueueMicrotask(isolate(), OnCheckpointMarker, queue);
  }
}

void RuntimeImpl::OnCheckpointMarker(void* data) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  RuntimeImpl* runtime = RuntimeRegistry::Find(isolate);
  if (runtime == nullptr)
    return;
  auto* queue = static_cast<v8::MicrotaskQueue*>(data);
  QueueUse* use = runtime->FindQueueUse(queue);
  if (use == nullptr)
    return;
  use->marker_queued = false;
  double generation = runtime->stack_.checkpoint_generation();
  v8::HandleScope handle_scope(isolate);
  for (const auto& [state, owned] : runtime->states_) {
    if (state->microtask_queue != queue || state->context.IsEmpty())
      continue;
    v8::Local<v8::Context> context = state->context.Get(isolate);
    compat::SetContinuationData(
        isolate, context,
        compat::CheckpointStartFrame(isolate, RootFrame(isolate, state)));
    state->context_fields[kContextMarkedCheckpoint] = generation;
  }
}

void RuntimeImpl::EnterRootFrames() {
  v8::Isolate* isolate = this->isolate();
  for (auto& [state, owned] : states_) {
    if (state->context.IsEmpty())
      continue;
    // Where the data is per context (10.2) this visits every context: a
    // scope per context keeps the handles from growing into new blocks.
    // A context already at the root (most, between tasks) is only read: a
    // write costs V8's write barrier.
    v8::HandleScope handle_scope(isolate);
    v8::Local<v8::Context> context = state->context.Get(isolate);
    v8::Local<v8::Value> root = RootFrame(isolate, state);
    if (compat::kContinuationDataPerIsolate ||
        compat::GetContinuationData(isolate, context) != root) {
      compat::SetContinuationData(isolate, context, root);
    }
    if (compat::kContinuationDataPerIsolate)
      break;
  }
}

void RuntimeImpl::EndHostTask(bool checkpoint_ended) {
  if (busy_ > 0 || callback_scope_depth > 0 || in_host_task_end_)
    return;
  v8::Isolate* isolate = this->isolate();
  in_host_task_end_ = true;
  v8::HandleScope handle_scope(isolate);
  bool terminating = isolate->IsExecutionTerminating();
  if (stack_.depth() > 0 || terminating) {
    // No JavaScript of the isolate is running, so whatever is still pushed
    // was abandoned by TerminateExecution.
    checkpoint_terminated_ = true;
    stack_.UnwindTo(0);
    std::fill(host_resources_.begin(), host_resources_.end(), nullptr);
  }
  if (!terminating) {
    BusyScope busy(this);
    RecoverFromTermination();
    DropDeferredMicrotasks();
    // A kExplicit host checkpoints after the call: a rejection may still be
    // handled by a job it runs.
    if (options_.on_unhandled_rejection &&
        (checkpoint_ended ||
         isolate->GetMicrotasksPolicy() == v8::MicrotasksPolicy::kAuto)) {
      rejections_.Process(options_.on_unhandled_rejection);
    }
    EmitPendingDestroys();
  }
  // Every task starts at the root frame: an enterWith (or a terminated
  // run()) of this one does not reach the next.
  EnterRootFrames();
  in_host_task_end_ = false;
}

void RuntimeImpl::RecoverFromTermination() {
  if (stack_.depth() == 0 && !checkpoint_terminated_ &&
      !stack_.hook_calls_open()) {
    return;
  }
  // Outside of every CallbackScope no JavaScript scope can be open, so what
  // is left was abandoned by TerminateExecution (finally blocks and `after`
  // hooks do not run then).
  checkpoint_terminated_ = false;
  stack_.UnwindTo(0);
  stack_.ResetHookCallsOpen();
  std::fill(host_resources_.begin(), host_resources_.end(), nullptr);
  v8::Isolate* isolate = this->isolate();
  v8::HandleScope handle_scope(isolate);
  for (ContextState* state : SnapshotStates()) {
    if (!IsLive(state) || state->context.IsEmpty())
      continue;
    v8::Local<v8::Context> context = state->context.Get(isolate);
    v8::Context::Scope context_scope(context);
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::Function> reset =
        state->LayerFunction(context, &ContextState::reset_after_termination);
    if (reset.IsEmpty())
      continue;
    (void)reset->Call(context, v8::Undefined(isolate), 0, nullptr).IsEmpty();
  }
}

void RuntimeImpl::RunMicrotasks(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = this->isolate();
  if (isolate->IsExecutionTerminating())
    return;
  BusyScope busy(this);
  DropDeferredMicrotasks();
  if (callback_scope_depth == 0)
    RecoverFromTermination();
  // Jobs captured at an undefined frame run in whatever frame is current
  // (V8 10.2 enters only captured frames that are not undefined), so the
  // checkpoint starts at the root: an enterWith in the script that ran
  // before must not leak. (On V8 10.2 the root as undefined: see
  // compat::CheckpointStartFrame.)
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Value> root =
      RootFrame(isolate, ContextState::Find(this, context));
  if (!context.IsEmpty()) {
    compat::SetContinuationData(isolate, context,
                                compat::CheckpointStartFrame(isolate, root));
  }
  size_t depth_before = stack_.depth();
  // A context may have its own queue (MicrotaskQueue::New); otherwise this
  // is the isolate's default queue.
  if (context.IsEmpty())
    isolate->PerformMicrotaskCheckpoint();
  else
    context->GetMicrotaskQueue()->PerformCheckpoint(isolate);
  // Every job pops what it pushed, so a deeper stack means jobs were
  // abandoned by TerminateExecution (V8 forgets the termination once no
  // JavaScript is left on the stack, so the depth is the reliable sign).
  if (isolate->IsExecutionTerminating() || stack_.depth() > depth_before) {
    // Jobs were abandoned mid-way: whatever they pushed is unwound now (JS
    // bookkeeping is reset at the next RunMicrotasks, when JavaScript may
    // run again).
    stack_.UnwindTo(depth_before);
    checkpoint_terminated_ = true;
    if (!context.IsEmpty())
      compat::SetContinuationData(isolate, context, root);
    return;
  }
  if (options_.on_unhandled_rejection)
    rejections_.Process(options_.on_unhandled_rejection);
  // V8 10.2 leaves whatever the last job set; every macrotask starts at the
  // root frame.
  if (!context.IsEmpty())
    compat::SetContinuationData(isolate, context, root);
}

void RuntimeImpl::DropMicrotasks(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = this->isolate();
  checkpoint_terminated_ = true;
  compat::SetContinuationData(
      isolate, context, RootFrame(isolate, ContextState::Find(this, context)));
  if (isolate->IsExecutionTerminating()) {
    // The host's TryCatch still holds the termination (V8 10.2 keeps it
    // until CancelTerminateExecution): V8 would leave the queue as it is.
    deferred_drops_.emplace_back(isolate, context);
    deferred_drops_.back().SetWeak();
    return;
  }
  DropQueue(context);
}

void RuntimeImpl::DropDeferredMicrotasksSlow() {
  v8::Isolate* isolate = this->isolate();
  if (isolate->IsExecutionTerminating())
    return;
  v8::HandleScope handle_scope(isolate);
  // DropQueue runs no JavaScript, so the list cannot change meanwhile.
  std::vector<v8::Global<v8::Context>> drops;
  drops.swap(deferred_drops_);
  for (const v8::Global<v8::Context>& weak : drops) {
    if (!weak.IsEmpty())
      DropQueue(weak.Get(isolate));
  }
}

void RuntimeImpl::DropQueue(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = this->isolate();
  // V8 empties a queue whose checkpoint is terminated: terminate for the
  // checkpoint, and cancel afterwards.
  isolate->TerminateExecution();
  {
    BusyScope busy(this);
    context->GetMicrotaskQueue()->PerformCheckpoint(isolate);
  }
  isolate->CancelTerminateExecution();
  compat::SetContinuationData(
      isolate, context, RootFrame(isolate, ContextState::Find(this, context)));
}

}  // namespace internal
}  // namespace asyncctx
