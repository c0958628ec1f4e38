// Copyright 2026 the asyncctx authors. All rights reserved.
//
// EventLoop: the shell's event loop, ordered like Node.js's. Each iteration
//
//   1. runs the timers that are due, by due time and then creation order;
//   2. emits the pending destroy hooks (Runtime::EmitPendingDestroys), then
//      runs the immediates queued before this phase began (ones queued while
//      it runs wait for the next iteration, as in Node, whose destroy hooks
//      also run from a native immediate ahead of the JavaScript ones);
//   3. runs the tasks V8 and asyncctx posted to the platform (GC follow-ups,
//      asyncctx's batched destroy hooks). Those never keep the loop alive;
//   4. runs the host's between-iterations work (the shell's
//      `rejectionhandled` events).
//
// and sleeps until the next timer is due when nothing else is pending. The
// loop ends when no ref'd timer or immediate is left, or after a fatal error.
// As in libuv, an iteration starts only while ref'd work exists, so unref'd
// work runs only alongside ref'd work.
//
// Every timer and immediate is an asyncctx::AsyncResource ("Timeout",
// "Immediate") created when JavaScript schedules it, with the JavaScript
// Timeout/Immediate object as its resource, and every firing runs through
// asyncctx::MakeCallback (in RunTask(), the one place that does): the
// callback sees the context frame captured at scheduling, its async id and
// trigger id, and the microtask checkpoint runs after it. The resource is
// destroyed (emitting `destroy`) when the work is cleared or, for a one-shot
// timer or an immediate, after it ran.

#ifndef TOOLS_SHELL_EVENT_LOOP_H_
#define TOOLS_SHELL_EVENT_LOOP_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "asyncctx/async_resource.h"
#include "asyncctx/runtime.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"
#include "v8-platform.h"

namespace asyncctx {
namespace shell {

class ErrorReporter;
class EventLoop;

// One setTimeout/setInterval timer or setImmediate immediate. It belongs to
// its JavaScript object (internal field EventLoop::kTaskField points back to
// it): while scheduled the loop holds the object strongly; once idle (fired
// or cleared) the object is weak and the task is freed with it, which keeps
// `+timeout`, hasRef() and refresh() working for as long as JavaScript can
// reach the object.
class Task {
 public:
  enum class Kind { kTimeout, kImmediate };

  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task();

  Kind kind() const { return kind_; }
  // The async id of the current (or, once idle, the last) resource. Node uses
  // it as a Timeout's primitive value.
  double async_id() const { return async_id_; }
  // A Timeout keeps its ref flag after it fired, as Node's does; an
  // Immediate is ref'd only while it is queued (false during its `init`,
  // inside its callback and once cleared, as in Node).
  bool has_ref() const {
    return kind_ == Kind::kTimeout ? refed_ : refed_ && scheduled_;
  }

 private:
  friend class EventLoop;

  Task(EventLoop* loop,
       Kind kind,
       v8::Local<v8::Object> object,
       v8::Local<v8::Function> callback,
       const std::vector<v8::Local<v8::Value>>& args,
       double delay_ms,
       bool repeat);

  static void OnCollected(const v8::WeakCallbackInfo<Task>& info);

  EventLoop* const loop_;
  const Kind kind_;
  v8::Global<v8::Object> object_;
  v8::Global<v8::Function> callback_;
  std::vector<v8::Global<v8::Value>> args_;
  // Exists from scheduling until the work is cleared or done.
  std::unique_ptr<asyncctx::AsyncResource> resource_;
  double async_id_ = 0;
  const double delay_ms_;
  const bool repeat_;
  bool refed_ = true;
  bool scheduled_ = false;
  bool running_ = false;
  // CreateResource() is constructing the resource: its `init` hook may call
  // any method of the object, which must neither create a second resource
  // nor schedule the task (the creator schedules it, or releases it if the
  // hook cleared it).
  bool creating_ = false;
  // clearTimeout()/clearImmediate() was called: refresh() must not re-arm.
  bool cleared_ = false;
  std::chrono::steady_clock::time_point due_;
  // JavaScript has read the numeric id, so clearTimeout(id) must find it
  // (Node registers ids lazily the same way; most timers never need it).
  bool id_exposed_ = false;
  // The id this task is filed under in timers_by_id_ (0: not filed). A
  // refreshed timer changes async_id_; only this one may be erased.
  double filed_id_ = 0;
  // Creation (or re-arming) order: breaks ties between equal due times and
  // tells which immediates were queued before the current phase.
  uint64_t sequence_ = 0;
  std::list<Task*>::iterator immediate_position_;
  std::list<std::unique_ptr<Task>>::iterator owner_position_;
};

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;

  // The internal field of Timeout and Immediate objects that holds the Task.
  static constexpr int kTaskField = 0;

  // All pointers must outlive the loop.
  EventLoop(v8::Isolate* isolate,
            v8::Local<v8::Context> context,
            v8::Platform* platform,
            asyncctx::Runtime* runtime,
            ErrorReporter* reporter);
  // Frees every task; the JavaScript objects that survive it see no task.
  ~EventLoop();

  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Creates and schedules a timer (`delay_ms` >= 1, already coerced the way
  // Node does) or an immediate for `object`, a Timeout or Immediate instance
  // with internal field kTaskField. Must be called from JavaScript (inside a
  // HandleScope in the loop's context): the new resource's trigger is the
  // current execution async id and it captures the current frame.
  Task* Start(Task::Kind kind,
              v8::Local<v8::Object> object,
              v8::Local<v8::Function> callback,
              const std::vector<v8::Local<v8::Value>>& args,
              double delay_ms,
              bool repeat);

  // clearTimeout / clearInterval / clearImmediate.
  void Clear(Task* task);
  // Timeout.prototype.refresh: restarts the timer from now. A fired one-shot
  // timer is re-armed under a new async id, as in Node; a cleared one is not.
  void Refresh(Task* task);
  // ref() / unref().
  void SetRef(Task* task, bool ref);
  // Returns the timer's numeric id ([Symbol.toPrimitive]; 0 inside its
  // first `init` hook, before the resource has an id) and makes
  // FindTimeout() able to find it by that id.
  double ExposeId(Task* task);
  // The scheduled timer whose id was exposed as `async_id`, or null
  // (clearTimeout(number)).
  Task* FindTimeout(double async_id) const;

  // Runs iterations until no ref'd work is left or a fatal error happened.
  void Run();
  // Work to run at the end of every iteration (step 4 above), in a
  // HandleScope with the loop's context entered.
  void set_between_iterations(
      std::function<void(v8::Local<v8::Context>)> work) {
    between_iterations_ = std::move(work);
  }
  // Whether ref'd timers or immediates are pending.
  bool alive() const { return ref_count_ > 0; }

 private:
  friend class Task;

  struct DueOrder {
    bool operator()(const Task* a, const Task* b) const {
      if (a->due_ != b->due_)
        return a->due_ < b->due_;
      return a->sequence_ < b->sequence_;
    }
  };

  // Gives the task a new resource (emitting `init`). False when the `init`
  // hook cleared the task, which is then released.
  bool CreateResource(Task* task);
  // Arms (or re-arms) a timer; a timer already armed is taken out of the
  // ordered set first, so that no key changes while it is in the set.
  void Schedule(Task* task, Clock::time_point due);
  void Unschedule(Task* task);
  // Files a scheduled timer whose id was exposed under its current id.
  void File(Task* task);
  // Destroys the resource of a task that is no longer scheduled and lets the
  // garbage collector take its object.
  void Release(Task* task);
  void RunTimers();
  void RunImmediates();
  void RunPlatformTasks();
  void RunTask(Task* task);
  void Forget(Task* task);

  v8::Isolate* const isolate_;
  v8::Global<v8::Context> context_;
  v8::Platform* const platform_;
  asyncctx::Runtime* const runtime_;
  ErrorReporter* const reporter_;
  std::function<void(v8::Local<v8::Context>)> between_iterations_;

  // Every task alive; a task's owner_position_ points at its entry.
  std::list<std::unique_ptr<Task>> tasks_;
  std::set<Task*, DueOrder> timers_;
  absl::flat_hash_map<double, Task*> timers_by_id_;
  std::list<Task*> immediates_;
  uint64_t next_sequence_ = 1;
  // Scheduled tasks that are ref'd.
  size_t ref_count_ = 0;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_EVENT_LOOP_H_
