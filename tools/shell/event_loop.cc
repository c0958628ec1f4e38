// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/event_loop.h"

#include <thread>
#include <utility>

#include "asyncctx/callback_scope.h"
#include "tools/shell/error_reporter.h"
#include "tools/v8_host/v8_host.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-microtask-queue.h"

namespace asyncctx {
namespace shell {

Task::Task(EventLoop* loop,
           Kind kind,
           v8::Local<v8::Object> object,
           v8::Local<v8::Function> callback,
           const std::vector<v8::Local<v8::Value>>& args,
           double delay_ms,
           bool repeat)
    : loop_(loop),
      kind_(kind),
      object_(loop->isolate_, object),
      callback_(loop->isolate_, callback),
      delay_ms_(delay_ms),
      repeat_(repeat) {
  args_.reserve(args.size());
  for (v8::Local<v8::Value> arg : args)
    args_.emplace_back(loop->isolate_, arg);
}

Task::~Task() = default;

// The idle Timeout/Immediate object was collected; no JavaScript can reach
// the task any more. Only handle resets are allowed here (first-pass weak
// callback), and freeing the task does only that: an idle task has no
// resource.
void Task::OnCollected(const v8::WeakCallbackInfo<Task>& info) {
  Task* task = info.GetParameter();
  task->object_.Reset();
  task->loop_->Forget(task);
}

EventLoop::EventLoop(v8::Isolate* isolate,
                     v8::Local<v8::Context> context,
                     v8::Platform* platform,
                     asyncctx::Runtime* runtime,
                     ErrorReporter* reporter)
    : isolate_(isolate),
      context_(isolate, context),
      platform_(platform),
      runtime_(runtime),
      reporter_(reporter) {}

EventLoop::~EventLoop() {
  v8::HandleScope handle_scope(isolate_);
  v8::Context::Scope context_scope(context_.Get(isolate_));
  // Detach the objects first, so that JavaScript running while the resources
  // are destroyed (a destroy hook) finds no task behind any of them.
  for (const std::unique_ptr<Task>& task : tasks_) {
    if (!task->object_.IsEmpty()) {
      host_compat::SetInternalPointer(task->object_.Get(isolate_), kTaskField,
                                      nullptr);
    }
  }
  timers_.clear();
  timers_by_id_.clear();
  immediates_.clear();
  ref_count_ = 0;
  for (const std::unique_ptr<Task>& task : tasks_)
    task->resource_.reset();
  tasks_.clear();
}

Task* EventLoop::Start(Task::Kind kind,
                       v8::Local<v8::Object> object,
                       v8::Local<v8::Function> callback,
                       const std::vector<v8::Local<v8::Value>>& args,
                       double delay_ms,
                       bool repeat) {
  std::unique_ptr<Task> owned(
      new Task(this, kind, object, callback, args, delay_ms, repeat));
  Task* task = owned.get();
  task->owner_position_ = tasks_.insert(tasks_.end(), std::move(owned));
  host_compat::SetInternalPointer(object, kTaskField, task);
  if (!CreateResource(task))
    return task;
  // Scheduled only now, after `init`: a hook that called refresh() on the
  // new timer leaves it armed once, from now, after any timer the hook
  // created (as Node's setTimeout re-inserts it).
  if (kind == Task::Kind::kTimeout) {
    Schedule(task, Clock::now());
  } else {
    task->sequence_ = next_sequence_++;
    task->scheduled_ = true;
    if (task->refed_)
      ++ref_count_;
    task->immediate_position_ = immediates_.insert(immediates_.end(), task);
  }
  return task;
}

bool EventLoop::CreateResource(Task* task) {
  const char* type =
      task->kind_ == Task::Kind::kTimeout ? "Timeout" : "Immediate";
  task->creating_ = true;
  // `init` runs inside this constructor and sees the object, not yet the
  // resource: the task's methods check creating_.
  auto resource = std::make_unique<asyncctx::AsyncResource>(
      context_.Get(isolate_), type, task->object_.Get(isolate_));
  task->creating_ = false;
  task->async_id_ = resource->async_id();
  task->resource_ = std::move(resource);
  if (task->cleared_) {
    Release(task);
    return false;
  }
  return true;
}

// Arms a timer to fire `delay_ms_` after `from`.
void EventLoop::Schedule(Task* task, Clock::time_point from) {
  // The ordered set finds a task by its due time and sequence: change them
  // only while the task is out of the set.
  Unschedule(task);
  task->due_ =
      from + std::chrono::duration_cast<Clock::duration>(
                 std::chrono::duration<double, std::milli>(task->delay_ms_));
  task->sequence_ = next_sequence_++;
  task->scheduled_ = true;
  if (task->refed_)
    ++ref_count_;
  timers_.insert(task);
  if (task->id_exposed_)
    File(task);
  task->object_.ClearWeak();
}

void EventLoop::File(Task* task) {
  if (task->filed_id_ != 0)
    timers_by_id_.erase(task->filed_id_);
  task->filed_id_ = task->async_id_;
  timers_by_id_[task->filed_id_] = task;
}

void EventLoop::Unschedule(Task* task) {
  if (!task->scheduled_)
    return;
  if (task->kind_ == Task::Kind::kTimeout) {
    timers_.erase(task);
    if (task->filed_id_ != 0) {
      timers_by_id_.erase(task->filed_id_);
      task->filed_id_ = 0;
    }
  } else {
    immediates_.erase(task->immediate_position_);
  }
  task->scheduled_ = false;
  if (task->refed_)
    --ref_count_;
}

void EventLoop::Release(Task* task) {
  // Node emits `destroy` once the work can no longer run.
  task->resource_.reset();
  task->object_.SetWeak(task, &Task::OnCollected,
                        v8::WeakCallbackType::kParameter);
}

void EventLoop::Forget(Task* task) {
  tasks_.erase(task->owner_position_);
}

void EventLoop::Clear(Task* task) {
  task->cleared_ = true;
  Unschedule(task);
  // A callback that clears its own timer still runs inside a CallbackScope
  // for the resource; RunTimers() releases it when the callback returns.
  // One cleared by its own `init` hook is released by CreateResource().
  if (!task->running_ && !task->creating_)
    Release(task);
}

void EventLoop::Refresh(Task* task) {
  // During `init` the creator arms the timer from now anyway.
  if (task->kind_ != Task::Kind::kTimeout || task->cleared_ ||
      task->creating_) {
    return;
  }
  if (!task->resource_) {
    // A fired one-shot timer: re-armed under a new resource, whose `init`
    // may clear it again.
    task->object_.ClearWeak();
    if (!CreateResource(task))
      return;
  }
  Schedule(task, Clock::now());
}

void EventLoop::SetRef(Task* task, bool ref) {
  // Node ignores an Immediate's ref()/unref() during its `init`, once it ran
  // and once cleared: its ref flag lives only while it is queued.
  if (task->kind_ == Task::Kind::kImmediate && !task->scheduled_)
    return;
  if (task->refed_ == ref)
    return;
  task->refed_ = ref;
  if (task->scheduled_)
    ref_count_ += ref ? 1 : -1;
}

double EventLoop::ExposeId(Task* task) {
  if (!task->id_exposed_) {
    task->id_exposed_ = true;
    if (task->scheduled_ && task->kind_ == Task::Kind::kTimeout)
      File(task);
  }
  return task->async_id_;
}

Task* EventLoop::FindTimeout(double async_id) const {
  auto it = timers_by_id_.find(async_id);
  return it == timers_by_id_.end() ? nullptr : it->second;
}

void EventLoop::Run() {
  while (!reporter_->failed()) {
    v8::HandleScope handle_scope(isolate_);
    v8::Context::Scope context_scope(context_.Get(isolate_));
    // As in libuv, an iteration starts only while ref'd work exists; once
    // started, it also runs due unref'd timers and queued unref'd
    // immediates. Platform tasks (pending destroy hooks) get their turn
    // either way.
    if (alive()) {
      RunTimers();
      RunImmediates();
    }
    RunPlatformTasks();
    if (between_iterations_ && !reporter_->failed())
      between_iterations_(context_.Get(isolate_));
    if (reporter_->failed() || !alive())
      break;
    // Only timers are left: nothing can happen before the first is due.
    // (V8's own foreground tasks wait meanwhile; none is urgent.)
    if (immediates_.empty() && !timers_.empty())
      std::this_thread::sleep_until((*timers_.begin())->due_);
  }
}

void EventLoop::RunTimers() {
  const Clock::time_point now = Clock::now();
  while (!reporter_->failed() && !timers_.empty()) {
    Task* task = *timers_.begin();
    if (task->due_ > now)
      break;
    Unschedule(task);
    RunTask(task);
    // An interval re-arms unless its callback cleared or refreshed it; a
    // one-shot timer stays armed only if its callback called refresh().
    if (task->repeat_ && !task->cleared_ && !task->scheduled_)
      Schedule(task, now);
    if (!task->scheduled_)
      Release(task);
  }
}

void EventLoop::RunImmediates() {
  // Node emits the destroy hooks queued by emitDestroy() (and by GC) from a
  // native immediate that runs before the JavaScript immediates of each
  // check phase; do the same rather than wait for the platform task.
  runtime_->EmitPendingDestroys();
  if (reporter_->failed())
    return;
  runtime_->RunMicrotasks(context_.Get(isolate_));
  if (immediates_.empty() || reporter_->failed())
    return;
  const uint64_t last = immediates_.back()->sequence_;
  while (!reporter_->failed() && !immediates_.empty() &&
         immediates_.front()->sequence_ <= last) {
    Task* task = immediates_.front();
    Unschedule(task);
    RunTask(task);
    Release(task);
  }
}

void EventLoop::RunPlatformTasks() {
  bool ran = true;
  while (ran && !reporter_->failed()) {
    v8::HandleScope handle_scope(isolate_);
    // Each task is a macrotask of its own, as Node.js runs platform tasks
    // (one FinalizationRegistry's cleanup, a destroy batch): at the root
    // frame, ids 0/0, with its own checkpoint, so that an enterWith() in
    // one tenant's cleanup reaches neither the next cleanup nor its jobs.
    asyncctx::TaskScope scope(context_.Get(isolate_));
    ran = asyncctx::host::PumpMessageLoop(isolate_);
  }
}

void EventLoop::RunTask(Task* task) {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Object> receiver = task->object_.Get(isolate_);
  v8::Local<v8::Function> callback = task->callback_.Get(isolate_);
  std::vector<v8::Local<v8::Value>> argv;
  argv.reserve(task->args_.size());
  for (const v8::Global<v8::Value>& arg : task->args_)
    argv.push_back(arg.Get(isolate_));

  task->running_ = true;
  // The one place where the shell runs JavaScript for a host resource: the
  // library's MakeCallback opens the CallbackScope (frame, ids, hooks, the
  // checkpoint) and reports an exception to the runtime's uncaught-exception
  // handler, the shell's ErrorReporter, inside that scope. As in Node, `this`
  // is the Timeout/Immediate object.
  (void)asyncctx::MakeCallback(task->resource_.get(), receiver, callback,
                               static_cast<int>(argv.size()), argv.data())
      .IsEmpty();
  task->running_ = false;
}

}  // namespace shell
}  // namespace asyncctx
