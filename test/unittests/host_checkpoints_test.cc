// Copyright 2026 the asyncctx authors. All rights reserved.
//
// RuntimeOptions::host_checkpoints: a host that runs each task as a script
// and checkpoints microtasks by itself (V8 with policy kAuto, or
// PerformMicrotaskCheckpoint with kExplicit) and never calls the runtime
// between tasks, as isolated-vm does. Each task must start at the root
// frame with an empty execution stack, whatever the one before did.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

class HostCheckpointsTest
    : public ::testing::TestWithParam<v8::MicrotasksPolicy> {
 protected:
  HostCheckpointsTest()
      : allocator_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {
    v8::Isolate::CreateParams params;
    params.array_buffer_allocator = allocator_.get();
    isolate_ = host::NewIsolate(params);
    isolate_->SetMicrotasksPolicy(GetParam());
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handle_scope(isolate_);
    RuntimeOptions options;
    options.host_checkpoints = true;
    // Tasks are kept and never run: what must happen at the end of a task
    // cannot wait for one.
    options.post_task = [this](std::function<void()> task) {
      posted_.push_back(std::move(task));
    };
    options.on_unhandled_rejection =
        [this](v8::Local<v8::Context>, v8::Local<v8::Promise>,
               v8::Local<v8::Value>) { rejections_++; };
    options.on_uncaught_exception =
        [this](v8::Local<v8::Context>, v8::Local<v8::Value>,
               v8::Local<v8::Message>) { uncaught_++; };
    runtime_ = Runtime::Create(isolate_, std::move(options));
    v8::Local<v8::Context> context = v8::Context::New(isolate_);
    EXPECT_TRUE(runtime_->Install(context).FromMaybe(false));
    context_.Reset(isolate_, context);
    SetFunction(context, "terminateNow",
                [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                  info.GetIsolate()->TerminateExecution();
                });
    SetFunction(
        context, "enqueueRaw",
        [](const v8::FunctionCallbackInfo<v8::Value>& info) {
          if (info[0]->IsFunction())
            info.GetIsolate()->EnqueueMicrotask(info[0].As<v8::Function>());
        });
    Task("globalThis.als = new AsyncLocalStorage(); 0");
  }

  ~HostCheckpointsTest() override {
    {
      v8::Isolate::Scope isolate_scope(isolate_);
      context_.Reset();
      runtime_.reset();
    }
    host::DisposeIsolate(isolate_);
  }

  // One host task: the script, then (kExplicit) the host's checkpoint; a
  // termination is cancelled as the host's watchdog would. Returns the
  // script's value as a string, or "terminated".
  std::string Task(const std::string& source) {
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handle_scope(isolate_);
    return TaskIn(context_.Get(isolate_), source);
  }
  // The same in another context of the isolate.
  std::string TaskIn(v8::Local<v8::Context> context,
                     const std::string& source) {
    std::string result = "terminated";
    {
      v8::Context::Scope context_scope(context);
      v8::TryCatch try_catch(isolate_);
      v8::Local<v8::String> code =
          v8::String::NewFromUtf8(isolate_, source.c_str()).ToLocalChecked();
      v8::Local<v8::Script> script;
      v8::Local<v8::Value> value;
      if (v8::Script::Compile(context, code).ToLocal(&script) &&
          script->Run(context).ToLocal(&value) && !try_catch.HasTerminated()) {
        result = *v8::String::Utf8Value(isolate_, value);
      } else if (!try_catch.HasTerminated()) {
        ADD_FAILURE() << source << ": "
                      << *v8::String::Utf8Value(isolate_,
                                                try_catch.Exception());
        result = "threw";
      }
      if (GetParam() == v8::MicrotasksPolicy::kExplicit &&
          !isolate_->IsExecutionTerminating()) {
        isolate_->PerformMicrotaskCheckpoint();
      }
      if (try_catch.HasTerminated() || isolate_->IsExecutionTerminating())
        result = "terminated";
    }
    isolate_->CancelTerminateExecution();
    return result;
  }

  // A fresh task that reads what every task must start with.
  void ExpectAtRest(const char* after) {
    EXPECT_EQ(Task("String(als.getStore())"), "undefined") << after;
    EXPECT_EQ(Task("String(asyncHooks.executionAsyncId())"), "1") << after;
    EXPECT_EQ(runtime_->ExecutionStackDepth(), 0u) << after;
  }

  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_;
  std::unique_ptr<Runtime> runtime_;
  v8::Global<v8::Context> context_;
  std::vector<std::function<void()>> posted_;
  v8::Global<v8::Function> kept_;
  int rejections_ = 0;
  int uncaught_ = 0;
};

TEST_P(HostCheckpointsTest, EnterWithInOneTaskIsNotSeenByTheNext) {
  EXPECT_EQ(Task("als.enterWith('entered'); String(als.getStore())"),
            "entered");
  ExpectAtRest("after enterWith");
}

// Every installed context starts the next task at its root frame, not only
// the first one the runtime finds: on V8 10.2 each context has a slot of its
// own, and a task of either context ends by resetting both.
TEST_P(HostCheckpointsTest, EnterWithInEitherOfTwoContextsIsNotSeenByTheNext) {
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> first = context_.Get(isolate_);
  v8::Local<v8::Context> second = v8::Context::New(isolate_);
  ASSERT_TRUE(runtime_->Install(second).FromMaybe(false));
  TaskIn(second, "globalThis.als = new AsyncLocalStorage(); 0");
  EXPECT_EQ(TaskIn(first, "als.enterWith('first'); String(als.getStore())"),
            "first");
  EXPECT_EQ(TaskIn(second, "als.enterWith('second'); String(als.getStore())"),
            "second");
  EXPECT_EQ(TaskIn(first, "String(als.getStore())"), "undefined");
  EXPECT_EQ(TaskIn(second, "String(als.getStore())"), "undefined");
}

TEST_P(HostCheckpointsTest, EnterWithWithAPendingReactionThenTheNextTask) {
  EXPECT_EQ(Task("als.enterWith('x');"
                 "Promise.resolve().then(() => {"
                 "  globalThis.seen = String(als.getStore()); }); 0"),
            "0");
  EXPECT_EQ(Task("seen"), "x");
  ExpectAtRest("after the reaction");
  // A reaction that enters a store itself does not reach the next task.
  Task("Promise.resolve().then(() => als.enterWith('in job')); 0");
  ExpectAtRest("after enterWith in a job");
}

// A function the host queues itself (Isolate::EnqueueMicrotask, no hook
// runs around it) enters a store; the jobs after it in the same checkpoint
// were queued at the root and run at the root, not in the frame that
// enterWith left: a reaction, and a thenable job (V8 10.2 enters nothing
// for it, so the repair tells the frame left by that enterWith by identity,
// thenable_repair.js's dirtyFrame, and resets it; the thenable job fails
// with the `dirtyFrame = getFrame()` mutant).
TEST_P(HostCheckpointsTest, JobsFromTheRootIgnoreAnEnterWithInAHostMicrotask) {
  EXPECT_EQ(
      Task("globalThis.seen = [];"
           "enqueueRaw(() => {"
           "  als.enterWith('raw'); seen.push(String(als.getStore())); });"
           "Promise.resolve().then(() => {"
           "  seen.push(String(als.getStore())); });"
           "enqueueRaw(() => als.enterWith('again'));"
           "Promise.resolve({ then(resolve) {"
           "  seen.push(String(als.getStore())); resolve(); } }); 0"),
      "0");
  EXPECT_EQ(Task("seen.join()"), "raw,undefined,undefined");
  ExpectAtRest("after the reaction");
}

// Thenable jobs of a checkpoint the host starts, in the frame its task left
// (the root object): the first promise job, and the ones after a reaction
// of the root, keep the store of the run they were queued in. (On V8 10.2
// the repair tells a thenable job from a reaction V8 entered the root for
// by the slot, which holds the root object only then, except at the first
// job of a host's checkpoint: thenable_repair.js, lastJobGeneration.
// Without it the first store is lost; the second is when the repair leaves
// the slot at the root object after a job instead of undefined.)
TEST_P(HostCheckpointsTest, ThenableJobsOfAHostCheckpointKeepTheirStore) {
  EXPECT_EQ(Task("globalThis.seen = [];"
                 "als.run('first', () => Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } }));"
                 "als.run('second', () => Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } }));"
                 "Promise.resolve().then(() => {"
                 "  seen.push(String(als.getStore())); });"
                 "Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } });"
                 "als.run('later', () => Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } })); 0"),
            "0");
  EXPECT_EQ(Task("seen.join()"), "first,second,undefined,undefined,later");
  ExpectAtRest("after the thenable jobs");
}

// A reaction queued at the root keeps the root when it is the first job of
// the host's checkpoint, although its capability (a species constructor's
// promise) was made inside another run: on V8 10.2 the slot then holds the
// root object its task left, as it does when V8 enters a reaction captured
// at the root, and a thenable job must still find its promise's store
// (docs/semantics.md, "Promise subclasses and species").
TEST_P(HostCheckpointsTest, FirstJobOfAHostCheckpointOnAForeignCapability) {
  EXPECT_EQ(Task("globalThis.seen = [];"
                 "globalThis.kept = als.run('other', () =>"
                 "  new Promise(() => {}));"
                 "globalThis.Species = function(executor) {"
                 "  executor(() => {}, () => {}); return kept; };"
                 "class P extends Promise {"
                 "  static get [Symbol.species]() { return Species; } }"
                 "globalThis.P = P; 0"),
            "0");
  EXPECT_EQ(Task("P.resolve().then(() => {"
                 "  seen.push(String(als.getStore())); });"
                 "Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } });"
                 "als.run('mine', () => Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } })); 0"),
            "0");
  EXPECT_EQ(Task("als.run('first', () => Promise.resolve({ then(resolve) {"
                 "  seen.push(String(als.getStore())); resolve(); } }));"
                 "P.resolve().then(() => {"
                 "  seen.push(String(als.getStore())); }); 0"),
            "0");
  EXPECT_EQ(Task("seen.join()"), "undefined,undefined,mine,first,undefined");
  ExpectAtRest("after the reactions");
}

// A checkpoint the host runs between tasks, with no call into V8 (its own
// microtask, queued with Isolate::EnqueueMicrotask, then
// PerformMicrotaskCheckpoint), has no marker: its first promise job finds
// the root object the last task left and is taken for a thenable job, whose
// promise's store it keeps (thenable_repair.js, lastJobGeneration).
TEST_P(HostCheckpointsTest, AThenableJobOfAHostCheckpointWithNoMarker) {
  {
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handle_scope(isolate_);
    SetFunction(
        context_.Get(isolate_), "keep",
        [](const v8::FunctionCallbackInfo<v8::Value>& info) {
          if (info[0]->IsFunction()) {
            FunctionData<v8::Global<v8::Function>>()->Reset(
                info.GetIsolate(), info[0].As<v8::Function>());
          }
        },
        &kept_);
  }
  EXPECT_EQ(Task("globalThis.seen = [];"
                 "keep(() => als.run('made', () =>"
                 "  Promise.resolve({ then(resolve) {"
                 "    seen.push(String(als.getStore())); resolve(); } }))); 0"),
            "0");
  {
    // Neither Global::Get, EnqueueMicrotask nor PerformMicrotaskCheckpoint
    // is a call into V8 (none runs the call-entered callbacks).
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handle_scope(isolate_);
    v8::Context::Scope context_scope(context_.Get(isolate_));
    isolate_->EnqueueMicrotask(kept_.Get(isolate_));
    isolate_->PerformMicrotaskCheckpoint();
  }
  kept_.Reset();
  EXPECT_EQ(Task("seen.join()"), "made");
  ExpectAtRest("after the thenable job");
}

TEST_P(HostCheckpointsTest, TerminationInsideRunIsRecovered) {
  EXPECT_EQ(Task("als.run('leaked', () => { terminateNow(); for (;;) {} })"),
            "terminated");
  ExpectAtRest("after a termination inside run");
}

TEST_P(HostCheckpointsTest, TerminationInsideAnAsyncScopeIsRecovered) {
  EXPECT_EQ(Task("new AsyncResource('X').runInAsyncScope(() =>"
                 "  als.run('leaked', () => { terminateNow(); for (;;) {} }))"),
            "terminated");
  ExpectAtRest("after a termination inside runInAsyncScope");
}

TEST_P(HostCheckpointsTest, TerminationInsideAHookIsRecovered) {
  EXPECT_EQ(Task("globalThis.once = true;"
                 "asyncHooks.createHook({ before() {"
                 "  if (once) { once = false; terminateNow(); for (;;) {} }"
                 "} }).enable();"
                 "als.run('leaked', () =>"
                 "  new AsyncResource('X').runInAsyncScope(() => {}))"),
            "terminated");
  ExpectAtRest("after a termination inside a hook");
  // The hook is still enabled and runs as before.
  EXPECT_EQ(Task("String(new AsyncResource('Y').runInAsyncScope(() =>"
                 "  asyncHooks.executionAsyncId() > 1))"),
            "true");
  ExpectAtRest("after the next hook");
}

// Terminated inside an init hook that a top-level script called: nothing
// is on the execution stack, only the hook caller's count of open hook
// calls tells the runtime. The program's next stack overflow inside a hook
// callback (which makes a dozen calls of its own, so the layer catches it
// with room to look at it) is the program's RangeError again, not a hook
// error counted at depth 2 (which would terminate the task).
TEST_P(HostCheckpointsTest, TerminationInsideAHookAtTheTopLevelIsRecovered) {
  EXPECT_EQ(Task("globalThis.h = asyncHooks.createHook({init(id, type) {"
                 "  if (type === 'T') { terminateNow(); for (;;) {} } }})"
                 "  .enable();"
                 "new AsyncResource('T');"),
            "terminated");
  ExpectAtRest("after a termination inside a hook");
  EXPECT_EQ(Task(R"JS(
    h.disable();
    (() => {
      function chain(n) { return n === 0 ? 0 : chain(n - 1) + 1; }
      const hook = asyncHooks.createHook({init() { chain(12); }}).enable();
      let caught = 0;
      (function deep() {
        try { deep(); } catch {}
        try { new AsyncResource('X'); } catch (e) { caught++; }
      })();
      hook.disable();
      return caught > 0;
    })()
  )JS"),
            "true");
  ExpectAtRest("after the overflows");
}

TEST_P(HostCheckpointsTest, TerminationInsideAMicrotaskIsRecovered) {
  Task(
      "als.run('leaked', () => queueMicrotask(() =>"
      "  als.run('deeper', () => { terminateNow(); for (;;) {} }))); 0");
  ExpectAtRest("after a termination inside a microtask");
  // queueMicrotask works at the root afterwards.
  Task("queueMicrotask(() => { globalThis.q = String(als.getStore()); }); 0");
  EXPECT_EQ(Task("q"), "undefined");
}

TEST_P(HostCheckpointsTest, DestroyHooksAreEmittedAtTheEndOfTheTask) {
  Task(
      "globalThis.destroyed = [];"
      "asyncHooks.createHook({ destroy(id) { destroyed.push(id); } })"
      "  .enable(); 0");
  Task(
      "globalThis.id = new AsyncResource('X').asyncId();"
      "new AsyncResource('Y').emitDestroy(); 0");
  EXPECT_EQ(Task("String(destroyed.length)"), "1");
}

TEST_P(HostCheckpointsTest, UnhandledRejectionsAreReported) {
  Task("Promise.reject(new Error('nobody')); 0");
  EXPECT_EQ(rejections_, 1);
  // Handled by a job of the same checkpoint: not reported.
  Task(
      "const p = Promise.reject(1);"
      "Promise.resolve().then(() => p.catch(() => {})); 0");
  EXPECT_EQ(rejections_, 1);
}

TEST_P(HostCheckpointsTest, QueueMicrotaskErrorsReachTheHost) {
  Task("queueMicrotask(() => { throw new Error('in microtask'); }); 0");
  EXPECT_EQ(uncaught_, 1);
  ExpectAtRest("after the error");
}

INSTANTIATE_TEST_SUITE_P(Policies,
                         HostCheckpointsTest,
                         ::testing::Values(v8::MicrotasksPolicy::kAuto,
                                           v8::MicrotasksPolicy::kExplicit),
                         [](const auto& info) {
                           return info.param == v8::MicrotasksPolicy::kAuto
                                      ? std::string("Auto")
                                      : std::string("Explicit");
                         });

// kScoped runs jobs when a MicrotasksScope closes, possibly with JavaScript
// running: refused, with the reason.
TEST(HostCheckpointsPolicyTest, ScopedPolicyIsRefused) {
  TestIsolate env([] {
    RuntimeOptions options;
    options.host_checkpoints = true;
    return options;
  }());
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kScoped);
  v8::Context::Scope context_scope(env.context());
  v8::Local<v8::Context> other = v8::Context::New(isolate);
  v8::TryCatch try_catch(isolate);
  EXPECT_TRUE(env.runtime()->Install(other).IsNothing());
  ASSERT_TRUE(try_catch.HasCaught());
  EXPECT_NE(std::string(*v8::String::Utf8Value(isolate, try_catch.Exception()))
                .find("must not be v8::MicrotasksPolicy::kScoped"),
            std::string::npos);
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
