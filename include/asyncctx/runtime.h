// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx::Runtime: the per-isolate owner of all async-context state.
//
// One Runtime exists per v8::Isolate that uses asyncctx. It owns the async id
// counters, the execution-resource stack, hook bookkeeping and the pending
// destroy queue. It holds no global state, so isolates on different threads
// each get their own Runtime and never share anything.
//
// Typical embedding:
//
//   auto runtime = asyncctx::Runtime::Create(isolate);
//   v8::Local<v8::Context> context = v8::Context::New(isolate);
//   if (runtime->Install(context).IsNothing()) { /* exception pending */ }
//   // ... run scripts; run every host callback through a CallbackScope ...
//   runtime.reset();       // before isolate->Dispose()
//
// Threading: a Runtime is used only on the thread that owns its isolate
// (under the isolate's v8::Locker if the host uses lockers).
//
// The host must set the isolate's microtask policy to kExplicit (Install()
// refuses kAuto and kScoped): the outermost CallbackScope and
// Runtime::RunMicrotasks() run the checkpoint, on the context's own
// microtask queue when it has one. A host that checkpoints by itself sets
// RuntimeOptions::host_checkpoints instead (kAuto or kExplicit).

#ifndef ASYNCCTX_RUNTIME_H_
#define ASYNCCTX_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-maybe.h"
#include "v8-message.h"
#include "v8-platform.h"
#include "v8-promise.h"
#include "v8-value.h"

namespace asyncctx {

class Runtime;

// The default v8::Isolate data slot (Isolate::SetData) in which asyncctx
// keeps the isolate's Runtime (RuntimeOptions::isolate_data_slot chooses
// another one).
inline constexpr uint32_t kIsolateDataSlot = 3;

// What Runtime::Install() puts on a context's global object. Each member is
// the global name to use; an empty string leaves that global out.
struct InstallOptions {
  // The AsyncLocalStorage class.
  std::string async_local_storage = "AsyncLocalStorage";
  // The AsyncResource class.
  std::string async_resource = "AsyncResource";
  // queueMicrotask(), which keeps the caller's context.
  std::string queue_microtask = "queueMicrotask";
  // TC39 AsyncContext namespace: { Variable, Snapshot }.
  std::string async_context = "AsyncContext";
  // Namespace shaped like node:async_hooks: createHook, executionAsyncId,
  // triggerAsyncId, executionAsyncResource, AsyncLocalStorage, AsyncResource.
  std::string async_hooks = "asyncHooks";
  // Namespace shaped like node:diagnostics_channel: channel, hasSubscribers,
  // subscribe, unsubscribe, tracingChannel, Channel (README.md,
  // docs/semantics.md "diagnostics_channel").
  std::string diagnostics_channel = "diagnosticsChannel";
  // Replace the global FinalizationRegistry with a constructor of the same
  // shape (name, length, prototype object, subclassing, a native toString)
  // whose cleanup callbacks run in the context frame current when the
  // registry was constructed, as the TC39 AsyncContext proposal asks; V8's
  // own runs them in whatever frame is current (docs/semantics.md,
  // "FinalizationRegistry"). The global and the prototype's `constructor`
  // become lazy data properties with their attributes: the constructor is
  // made at the first read of either. Nothing is replaced when the global
  // is missing at Install; one a script replaced before Install is what the
  // replacement wraps (the library takes the global's value as V8's).
  bool finalization_registry_context = true;
  // Compile the JavaScript layer with the process-wide V8 code cache (made
  // by the first Install() of the process that has this on, and shared by
  // every isolate after it; docs/embedding.md, "What Install costs"). Off by
  // default: V8 (13 and later) aborts the process when a code cache is made
  // in an isolate that is creating a snapshot (v8::SnapshotCreator), and the
  // library cannot tell such an isolate from another. Turn it on where no
  // snapshot is made, as the isolated-vm integration does.
  bool code_cache = false;
};

// An exception that escaped a hook callback (init, before, after, destroy,
// promiseResolve). Node.js treats it as fatal: it prints the stack and exits
// with code 1 without running uncaught-exception handlers.
struct HookError {
  std::string hook_name;  // "init", "before", ...
  std::string message;    // the exception converted to a string
  std::string stack;      // the exception's stack, when it has one
};

// A promise rejection nobody handled by the end of a microtask checkpoint.
// The handler runs inside the context frame that was current when the promise
// was rejected, so AsyncLocalStorage stores and AsyncContext variables read
// there see the rejecting request.
using UnhandledRejectionHandler =
    std::function<void(v8::Local<v8::Context> context,
                       v8::Local<v8::Promise> promise,
                       v8::Local<v8::Value> reason)>;

// Called when a hook callback throws. The default prints the error and its
// stack to stderr and terminates the isolate's JavaScript
// (Isolate::TerminateExecution); it never exits the process. Node.js exits
// with code 1 here: a host that wants that (the shell does) exits in its own
// handler.
using HookErrorHandler =
    std::function<void(v8::Isolate* isolate, const HookError& error)>;

// Called for an exception thrown by a microtask queued with queueMicrotask or
// by a callback run through a CallbackScope, which no JavaScript caught.
// The default prints it to stderr. The shell exits with code 1.
using UncaughtExceptionHandler =
    std::function<void(v8::Local<v8::Context> context,
                       v8::Local<v8::Value> exception,
                       v8::Local<v8::Message> message)>;

// Called for a broken invariant or a misuse of the C++ API that leaves no
// way to continue safely (stack corruption, a runtime destroyed while it runs
// JavaScript, ...). `message` is the whole "asyncctx: fatal: <api>:
// <problem>" line. The handler must not return (it may abort, exit, or
// longjmp out of the host's own recovery); if it returns, asyncctx aborts.
// The default prints `message` to stderr and aborts.
using FatalErrorHandler = std::function<void(const std::string& message)>;

// Posts a task that the host must run later on the isolate's thread, outside
// of garbage collection (used to emit batched destroy hooks). The default
// posts to the platform's foreground task runner for the isolate.
using TaskPoster = std::function<void(std::function<void()> task)>;

// How Runtime::Create() sets up a runtime.
struct RuntimeOptions {
  // Repair V8 10.2's loss of context in thenable jobs (`await thenable`,
  // `resolve(thenable)`) with promise hooks. The hooks are installed only
  // after a non-root frame is first entered in a context. Hosts that know
  // they have no custom thenables can turn this off for faster `await`.
  // Ignored (always off) on V8 versions that propagate context by themselves.
  bool thenable_repair = true;

  // Index of the first of the three v8::Context embedder data slots asyncctx
  // uses (the JavaScript layer, the per-context state, and a tag that marks
  // the context as installed). Choose others if the host already uses them.
  int context_embedder_index = 40;

  // The v8::Isolate data slot (Isolate::SetData, 0 to
  // Isolate::GetNumberOfDataSlots() - 1) in which the runtime records itself,
  // which reserves it: the host must leave it alone while the runtime
  // exists. Choose another one if the host or another library already uses
  // slot 3; isolates of one process may use different slots. The other
  // slots are never read or written.
  uint32_t isolate_data_slot = kIsolateDataSlot;

  // Platform used by the default TaskPoster. May be null when post_task is
  // given, or when the host calls Runtime::EmitPendingDestroys() itself.
  v8::Platform* platform = nullptr;

  // Posts the task that emits batched destroy hooks; when empty, the task
  // goes to `platform`'s foreground task runner.
  TaskPoster post_task;
  // Receives exceptions thrown by hook callbacks (default: print, terminate
  // JavaScript).
  HookErrorHandler on_hook_error;
  // Receives fatal errors (default: print, abort). The library itself never
  // calls exit() or abort() except through this handler.
  FatalErrorHandler on_fatal_error;
  // Receives uncaught exceptions (default: print to stderr).
  UncaughtExceptionHandler on_uncaught_exception;
  // When set, the Runtime installs the isolate's PromiseRejectCallback and
  // reports unhandled rejections through this handler after each checkpoint.
  UnhandledRejectionHandler on_unhandled_rejection;

  // The host runs the microtask checkpoints itself
  // (Isolate::PerformMicrotaskCheckpoint, or V8 with policy kAuto) and may
  // never call RunMicrotasks(). Install() then accepts isolates whose policy
  // is kAuto or kExplicit (kScoped is still refused). At the end of every
  // checkpoint and of every outermost call into JavaScript (no JavaScript of
  // the isolate left running, no CallbackScope open) the runtime makes the
  // root frame current again (an enterWith in one task does not reach the
  // next), recovers from a TerminateExecution inside run(), a hook or a
  // microtask (at once, or before the next call into JavaScript while the
  // isolate still terminates), reports unhandled rejections and emits the
  // batched destroy hooks. The host must not checkpoint while JavaScript of
  // the isolate is running.
  bool host_checkpoints = false;
};

// The per-isolate owner of all async-context state (see the top of this
// file).
class ASYNCCTX_EXPORT Runtime {
 public:
  // Creates the runtime for `isolate`. The isolate must outlive the runtime.
  // Returns an error status, and creates nothing, if `isolate` is null or
  // `options.isolate_data_slot` is not a slot of the isolate
  // (kInvalidArgument), or if the isolate already has a runtime or that slot
  // holds a value (kAlreadyExists).
  static absl::StatusOr<std::unique_ptr<Runtime>> New(
      v8::Isolate* isolate,
      RuntimeOptions options = {});

  // As New(), but returns null and prints the status to stderr on failure.
  static std::unique_ptr<Runtime> Create(v8::Isolate* isolate,
                                         RuntimeOptions options = {});

  // The runtime created for `isolate`, or null; whatever slot it uses (a
  // process-wide map from isolate to runtime, cached per thread, so the
  // isolate's data slots are not read). Safe on any thread.
  static Runtime* From(v8::Isolate* isolate);

  // Detaches every context it installed that is still alive: from then on
  // the globals there throw "asyncctx: the Runtime of this context has been
  // destroyed" (run, Snapshot#run, the id accessors, the hooks,
  // AsyncResource; getStore keeps reading the current frame), the typed
  // arrays the JavaScript layer shares with it are detached, and the
  // contexts' embedder data no longer points to it (such a context can be
  // snapshotted; see asyncctx/snapshot.h). Must not run inside JavaScript
  // this runtime called (fatal; docs/embedding.md, "Rules for hosts").
  virtual ~Runtime();

  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Installs the globals chosen by `options` into `context` and prepares the
  // context for callback scopes. All or nothing: installing twice into one
  // context, an isolate whose microtasks policy is not kExplicit (kAuto is
  // accepted too with RuntimeOptions::host_checkpoints), or a
  // global that cannot be defined fails with an Error thrown in JavaScript
  // (Nothing is returned, and no global is left defined).
  virtual v8::Maybe<bool> Install(v8::Local<v8::Context> context,
                                  const InstallOptions& options = {}) = 0;

  // True if Install() succeeded for `context`.
  virtual bool IsInstalled(v8::Local<v8::Context> context) const = 0;

  // The isolate this runtime was created for.
  v8::Isolate* isolate() const { return isolate_; }

  // The async id of the resource whose callback is running (1 at the top
  // level of a script the host runs directly), and the id of the resource
  // that caused it (0 at the top level).
  virtual double ExecutionAsyncId() const = 0;
  // See ExecutionAsyncId().
  virtual double TriggerAsyncId() const = 0;

  // Number of entries on the execution-resource stack.
  virtual size_t ExecutionStackDepth() const = 0;

  // Runs the microtask checkpoint (starting at the root frame), then reports
  // unhandled rejections, and leaves the root frame current. Hosts call this
  // from their event loop after running a script outside of a CallbackScope,
  // never while JavaScript is running. It is also the recovery point after
  // TerminateExecution: once the host has called CancelTerminateExecution(),
  // this empties the execution stack and the bookkeeping that the terminated
  // JavaScript could not undo. Does nothing while the isolate is terminating.
  virtual void RunMicrotasks(v8::Local<v8::Context> context) = 0;

  // Emits destroy hooks for resources collected by the GC since the last
  // call. Normally run by the posted task; hosts may call it directly.
  virtual void EmitPendingDestroys() = 0;

  // Turns the thenable repair on or off for contexts installed later and for
  // existing ones (see RuntimeOptions::thenable_repair).
  virtual void SetThenableRepair(bool enabled) = 0;

 protected:
  // Only Create() makes runtimes.
  explicit Runtime(v8::Isolate* isolate) : isolate_(isolate) {}

 private:
  v8::Isolate* const isolate_;
};

}  // namespace asyncctx

#endif  // ASYNCCTX_RUNTIME_H_
