// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Faults: TerminateExecution at random points, out-of-memory inside `run`,
// stack overflow at every API entry point, hooks and `then` methods that
// throw. After each, the isolate must be usable again: a fresh script runs at
// the root frame with an empty execution stack. Argument misuse (Symbols,
// Proxies, frozen and revoked objects, throwing getters) is covered by
// test/js/faults/.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "src/v8_compat.h"
#include "test/unittests/request_workload.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

std::string ToString(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 != nullptr ? std::string(*utf8, utf8.length()) : "<?>";
}

// What the runtime reported to the host, instead of printing and exiting.
struct Reports {
  std::vector<std::string> hook_errors;  // "hook|message"
  std::vector<std::string> uncaught;

  RuntimeOptions Options() {
    RuntimeOptions options;
    options.on_hook_error = [this](v8::Isolate*, const HookError& error) {
      hook_errors.push_back(error.hook_name + "|" + error.message);
    };
    options.on_uncaught_exception = [this](v8::Local<v8::Context> context,
                                           v8::Local<v8::Value> exception,
                                           v8::Local<v8::Message>) {
      uncaught.push_back(ToString(host_compat::IsolateOf(context), exception));
    };
    return options;
  }

  std::string Summary() const {
    std::string out;
    for (const auto& e : hook_errors)
      out += "hook error: " + e + "\n";
    for (const auto& e : uncaught)
      out += "uncaught: " + e + "\n";
    return out;
  }
};

// A TestIsolate whose hook errors and uncaught exceptions are recorded.
class FaultTest : public ::testing::Test {
 protected:
  FaultTest() : env_(std::make_unique<TestIsolate>(reports_.Options())) {
    isolate_scope_.emplace(env_->isolate());
    handle_scope_.emplace(env_->isolate());
    context_scope_.emplace(env_->context());
  }
  ~FaultTest() override {
    context_scope_.reset();
    handle_scope_.reset();
    isolate_scope_.reset();
    env_.reset();
  }

  v8::Isolate* isolate() { return env_->isolate(); }
  Runtime* runtime() { return env_->runtime(); }
  v8::Local<v8::Context> context() { return env_->context(); }
  TestIsolate& env() { return *env_; }
  std::string RunString(const std::string& source) {
    return env_->RunString(source);
  }

  // The state every macrotask must start from.
  void ExpectAtRest(const char* where) {
    SCOPED_TRACE(where);
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
    EXPECT_EQ(runtime()->ExecutionAsyncId(), 1);
    EXPECT_EQ(runtime()->TriggerAsyncId(), 0);
    // `probes`: the test's stores and variables, which must all be unset.
    EXPECT_EQ(RunString(R"JS(
      [asyncHooks.executionAsyncId(), asyncHooks.triggerAsyncId(),
       Object.getPrototypeOf(asyncHooks.executionAsyncResource()) ===
           Object.prototype,
       (globalThis.probes || []).every(
           (p) => (p.get ? p.get() : p.getStore()) === undefined)].join()
    )JS"),
              "1,0,true,true");
  }

  Reports reports_;
  std::unique_ptr<TestIsolate> env_;
  std::optional<v8::Isolate::Scope> isolate_scope_;
  std::optional<v8::HandleScope> handle_scope_;
  std::optional<v8::Context::Scope> context_scope_;
};

// ---------------------------------------------------------------------------
// Stack overflow at every API entry point.

// Calls each API entry point at every stack depth near the limit (with 12
// frame paddings, so the overflow lands at every point inside the call), and
// checks after each call, caught or not, that the frame and the execution ids
// are what they were. Returns one line per entry point with a problem.
const char kStackOverflowProbe[] = R"JS(
(function(withHooks) {
  const als = new AsyncLocalStorage();
  const other = new AsyncLocalStorage();
  const variable = new AsyncContext.Variable();
  const resource = new AsyncResource('Probe');
  const bound = resource.bind(() => 1);
  const snapshot = new AsyncContext.Snapshot();
  const alsSnapshot = AsyncLocalStorage.snapshot();
  const wrapped = AsyncContext.Snapshot.wrap(() => 1);
  const hook = asyncHooks.createHook({init() {}, destroy() {}});
  const hooks = [];
  if (withHooks) {
    hooks.push(asyncHooks.createHook({
      init() {}, before() {}, after() {}, destroy() {}, promiseResolve() {},
    }).enable());
  }
  // Overflows when called within 50 frames of the limit.
  function deep(n = 50) { return n === 0 ? 0 : deep(n - 1) + 1; }
  const calls = {
    'als.run': () => als.run(2, () => als.getStore()),
    'als.run (overflow in callback)': () => als.run(2, deep),
    'als.exit': () => als.exit(() => als.getStore()),
    'als.exit (overflow in callback)': () => als.exit(deep),
    'als.enterWith': () => other.run(0, () => als.enterWith(3)),
    'als.getStore': () => als.getStore(),
    'new AsyncLocalStorage': () => new AsyncLocalStorage({defaultValue: 1}),
    'AsyncLocalStorage.bind': () => AsyncLocalStorage.bind(() => 1)(),
    'AsyncLocalStorage.snapshot': () => AsyncLocalStorage.snapshot(),
    'AsyncLocalStorage.snapshot()()': () => alsSnapshot(() => 1),
    'new AsyncResource': () => new AsyncResource('X'),
    'runInAsyncScope': () => resource.runInAsyncScope(() => 1),
    'runInAsyncScope (overflow in callback)': () =>
        resource.runInAsyncScope(deep),
    'AsyncResource#bind': () => resource.bind(() => 1),
    'bound function': () => bound(),
    'AsyncResource.bind': () => AsyncResource.bind(() => 1)(),
    'emitDestroy': () => new AsyncResource('D').emitDestroy(),
    'new Variable': () => new AsyncContext.Variable({name: 'v'}),
    'Variable#run': () => variable.run(5, () => variable.get()),
    'Variable#run (overflow in callback)': () => variable.run(5, deep),
    'Variable#get': () => variable.get(),
    'new Snapshot': () => new AsyncContext.Snapshot(),
    'Snapshot#run': () => snapshot.run(() => 1),
    'Snapshot#run (overflow in callback)': () => snapshot.run(deep),
    'Snapshot.wrap': () => AsyncContext.Snapshot.wrap(() => 1),
    'wrapped function': () => wrapped(),
    'queueMicrotask': () => queueMicrotask(() => {}),
    'createHook': () => asyncHooks.createHook({init() {}, after() {}}),
    'hook enable/disable': () => { hook.enable(); hook.disable(); },
    'executionAsyncId': () => asyncHooks.executionAsyncId(),
    'triggerAsyncId': () => asyncHooks.triggerAsyncId(),
    'executionAsyncResource': () => asyncHooks.executionAsyncResource(),
  };
  const problems = [];
  let overflows = 0;
  for (const [name, call] of Object.entries(calls)) {
    const bad = [];
    const eid = asyncHooks.executionAsyncId();
    const tid = asyncHooks.triggerAsyncId();
    for (let pad = 0; pad < 12; pad++) {
      const args = Array.from({length: pad}, (_, i) => 'a' + i);
      const recurse = new Function('c', ...args, `
        try { c.self(c, ${args.join(',')}); } catch (e) { c.rethrow(e); }
        if (c.streak < 64) {
          try { c.call(); c.streak++; } catch (e) { c.streak = 0; c.caught(e); }
          c.check();
        }`);
      // Calls at every depth from the limit up to 64 calls in a row that
      // did not overflow.
      const c = {
        self: recurse,
        streak: 0,
        call,
        rethrow(e) { if (!(e instanceof RangeError)) throw e; },
        caught(e) {
          if (e instanceof RangeError) overflows++;
          else bad.push('threw ' + e);
        },
        check() {
          const store = als.getStore();
          if (store !== 'outer' || other.getStore() !== undefined ||
              variable.get() !== 'v' ||
              asyncHooks.executionAsyncId() !== eid ||
              asyncHooks.triggerAsyncId() !== tid) {
            bad.push(`store ${store}, other ${other.getStore()}, variable ` +
                     `${variable.get()}, ids ${asyncHooks.executionAsyncId()}` +
                     `/${asyncHooks.triggerAsyncId()} (want ${eid}/${tid})`);
          }
        },
      };
      try {
        als.run('outer', () => variable.run('v', () => recurse(c)));
      } catch (e) {
        bad.push('escaped: ' + e);
      }
      if (als.getStore() !== undefined || variable.get() !== undefined) {
        bad.push('the frame of the probe leaked out of run');
      }
    }
    if (bad.length > 0) {
      problems.push(`${name}: ${bad.length} bad states, first: ${bad[0]}`);
    }
  }
  for (const h of hooks) h.disable();
  // The hook bookkeeping survived: a new hook sees every event.
  const events = [];
  let probe;
  const check = asyncHooks.createHook({
    init(id, type) { if (type === 'Check') events.push('init'); },
    before(id) { if (probe && id === probe.asyncId()) events.push('before'); },
    after(id) { if (probe && id === probe.asyncId()) events.push('after'); },
  }).enable();
  probe = new AsyncResource('Check');
  probe.runInAsyncScope(() => {});
  check.disable();
  if (events.join() !== 'init,before,after') {
    problems.push('a new hook saw ' + events.join());
  }
  if (overflows < 100) problems.push('only ' + overflows + ' overflows');
  return problems.join('\n');
})
)JS";

std::string RunStackOverflowProbe(TestIsolate& env, bool with_hooks) {
  v8::HandleScope scope(env.isolate());
  v8::Local<v8::Context> context = env.context();
  v8::Local<v8::Function> probe =
      env.Run(kStackOverflowProbe).As<v8::Function>();
  v8::Local<v8::Value> argv[] = {v8::Boolean::New(env.isolate(), with_hooks)};
  v8::TryCatch try_catch(env.isolate());
  v8::Local<v8::Value> result;
  if (!probe->Call(context, v8::Undefined(env.isolate()), 1, argv)
           .ToLocal(&result)) {
    return "the probe threw: " + ToString(env.isolate(), try_catch.Exception());
  }
  env.runtime()->RunMicrotasks(context);
  env.PumpTasks();
  return ToString(env.isolate(), result);
}

TEST_F(FaultTest, StackOverflowAtEveryEntryPointIsCatchable) {
  EXPECT_EQ(RunStackOverflowProbe(env(), /*with_hooks=*/false), "");
  EXPECT_EQ(reports_.Summary(), "");
  ExpectAtRest("after the probe");
}

// With hooks enabled, an overflow inside a hook callback is a hook error
// (fatal by default, as in Node); a host whose handler returns must still
// find the state restored.
TEST_F(FaultTest, StackOverflowAtEveryEntryPointWithHooksRestoresState) {
  EXPECT_EQ(RunStackOverflowProbe(env(), /*with_hooks=*/true), "");
  EXPECT_FALSE(reports_.hook_errors.empty());
  for (const std::string& error : reports_.hook_errors) {
    // See HookErrorFromStackOverflowHasAReadableMessage for "<unprintable>".
    EXPECT_TRUE(error.find("|RangeError: Maximum call stack size exceeded") !=
                    std::string::npos ||
                error.find("|<unprintable>") != std::string::npos)
        << error;
  }
  EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
  ExpectAtRest("after the probe");
}

// Regression test (bug found here): a hook called at the stack limit
// overflows, and the runtime converted the RangeError to a string by calling
// into JavaScript at the same depth, so the host's hook error handler
// received "<unprintable>" and no stack.
TEST_F(FaultTest, HookErrorFromStackOverflowHasAReadableMessage) {
  RunString(R"JS(
    asyncHooks.createHook({init() {}}).enable();
    (function recurse() {
      try { recurse(); } catch (e) {}
      new AsyncResource('X');
    })();
  )JS");
  ASSERT_FALSE(reports_.hook_errors.empty());
  for (const std::string& error : reports_.hook_errors) {
    EXPECT_EQ(error, "init|RangeError: Maximum call stack size exceeded");
  }
}

// ---------------------------------------------------------------------------
// Hooks that throw, `then` methods that throw.

// Every hook kind throws, for every kind of resource. The host's handler
// (which returns, unlike Node's default) gets each error; callbacks run in
// their frames and the state is restored.
TEST_F(FaultTest, ThrowingHooksReachTheHandlerAndStateIsRestored) {
  RunString(R"JS(
    globalThis.als = new AsyncLocalStorage();
    globalThis.probes = [als];
    globalThis.seen = [];
    globalThis.hooks = ['init', 'before', 'after', 'destroy', 'promiseResolve']
        .map((kind) => asyncHooks.createHook({
          [kind]() { throw new Error('hook ' + kind); },
        }).enable());
    als.run('req', () => {
      const r = new AsyncResource('R');
      r.runInAsyncScope(() => seen.push('runInAsyncScope:' + als.getStore()));
      r.emitDestroy();
      AsyncResource.bind(() => seen.push('bind:' + als.getStore()))();
      queueMicrotask(() => seen.push('microtask:' + als.getStore()));
      Promise.resolve().then(() => seen.push('then:' + als.getStore()));
      (async () => {
        await {then(resolve) { resolve(); }};
        seen.push('await:' + als.getStore());
      })();
    });
    globalThis.hostCallback = () => seen.push('host:' + als.getStore());
  )JS");
  runtime()->RunMicrotasks(context());
  {
    AsyncResource host(context(), "Host");
    v8::Local<v8::Function> fn = env().Run("hostCallback").As<v8::Function>();
    EXPECT_FALSE(MakeCallback(&host, v8::Undefined(isolate()), fn, 0, nullptr)
                     .IsEmpty());
  }
  env().PumpTasks();
  EXPECT_EQ(RunString("seen.sort().join()"),
            "await:req,bind:req,host:undefined,microtask:req,"
            "runInAsyncScope:req,then:req");
  std::string errors;
  for (const std::string& e : reports_.hook_errors) {
    std::string kind = e.substr(0, e.find('|'));
    if (errors.find(kind + ",") == std::string::npos)
      errors += kind + ",";
    EXPECT_EQ(e.substr(e.find('|') + 1), "Error: hook " + kind);
  }
  EXPECT_EQ(errors, "init,before,after,promiseResolve,destroy,");
  EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
  RunString("for (const h of hooks) h.disable();");
  ExpectAtRest("after throwing hooks");
}

TEST_F(FaultTest, ThenMethodsThatThrowRejectInTheAwaitingFrame) {
  for (const char* setup : {"",
                            "asyncHooks.createHook({init() {}, before() {}, "
                            "after() {}}).enable();"}) {
    SCOPED_TRACE(setup);
    RunString(std::string(setup) + R"JS(
      globalThis.als = new AsyncLocalStorage();
      globalThis.probes = [als];
      globalThis.seen = [];
      als.run('t', async () => {
        try {
          await {then() { throw new Error('then'); }};
        } catch (e) { seen.push(e.message + ':' + als.getStore()); }
        try {
          await {get then() { throw new Error('getter'); }};
        } catch (e) { seen.push(e.message + ':' + als.getStore()); }
        await {then(resolve) { resolve(); throw new Error('ignored'); }};
        seen.push('after resolve:' + als.getStore());
        try {
          await Promise.resolve({then(resolve, reject) {
            reject(new Error('rejected'));
          }});
        } catch (e) { seen.push(e.message + ':' + als.getStore()); }
        try {
          await new Proxy({}, {get() { throw new Error('proxy'); }});
        } catch (e) { seen.push(e.message + ':' + als.getStore()); }
      });
    )JS");
    runtime()->RunMicrotasks(context());
    EXPECT_EQ(RunString("seen.join()"),
              "then:t,getter:t,after resolve:t,rejected:t,proxy:t");
    EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
    ExpectAtRest("after throwing thenables");
  }
}

// ---------------------------------------------------------------------------
// TerminateExecution at chosen points: terminateNow() terminates the isolate
// from inside JavaScript, so the next statement never runs.

class TerminateTest : public FaultTest {
 protected:
  TerminateTest() {
    context()
        ->Global()
        ->Set(context(),
              v8::String::NewFromUtf8Literal(isolate(), "terminateNow"),
              v8::Function::New(
                  context(),
                  [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                    info.GetIsolate()->TerminateExecution();
                  })
                  .ToLocalChecked())
        .Check();
    RunString(
        "globalThis.als = new AsyncLocalStorage();"
        "globalThis.probes = [als];");
  }

  // Runs `source` as a top-level script that is expected to be terminated.
  void RunTerminated(const char* source) {
    v8::HandleScope scope(isolate());
    v8::TryCatch try_catch(isolate());
    v8::Local<v8::Value> result;
    EXPECT_FALSE(
        v8::Script::Compile(
            context(),
            v8::String::NewFromUtf8(isolate(), source).ToLocalChecked())
            .ToLocalChecked()
            ->Run(context())
            .ToLocal(&result));
    EXPECT_TRUE(try_catch.HasTerminated());
  }

  // What a host does after a termination before its next macrotask.
  void Recover() {
    isolate()->CancelTerminateExecution();
    runtime()->RunMicrotasks(context());
  }
};

TEST_F(TerminateTest, TerminationInsideRunAtTopLevelRestoresTheRootFrame) {
  RunTerminated("als.run('leaked', () => { terminateNow(); for (;;) {} })");
  Recover();
  ExpectAtRest("after the termination");
}

// Regression test (bug found here): runInAsyncScope's `finally` never runs
// when the isolate is terminated, and nothing unwound the execution stack
// outside of a CallbackScope, so every later macrotask ran with the
// terminated resource's ids.
TEST_F(TerminateTest, TerminationInATopLevelScriptLeavesTheStackEmpty) {
  RunTerminated(
      "new AsyncResource('X').runInAsyncScope(() => {"
      "  terminateNow(); for (;;) {} })");
  Recover();
  ExpectAtRest("after the termination");
}

// Regression test (bug found here): as above, in a microtask run by
// Runtime::RunMicrotasks().
TEST_F(TerminateTest, TerminationInATopLevelCheckpointLeavesTheStackEmpty) {
  RunString(
      "queueMicrotask(() => new AsyncResource('X').runInAsyncScope(() => {"
      "  terminateNow(); for (;;) {} }))");
  runtime()->RunMicrotasks(context());
  EXPECT_TRUE(isolate()->IsExecutionTerminating());
  Recover();
  ExpectAtRest("after the termination");
}

// Regression test (bug found here): as above, in the checkpoint the
// outermost CallbackScope runs after it has popped its own entry (so it no
// longer unwinds).
TEST_F(TerminateTest,
       TerminationInACallbackScopeCheckpointLeavesTheStackEmpty) {
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    RunString(
        "queueMicrotask(() => new AsyncResource('X').runInAsyncScope("
        "  () => { terminateNow(); for (;;) {} }))");
  }
  EXPECT_TRUE(isolate()->IsExecutionTerminating());
  Recover();
  ExpectAtRest("after the termination");
}

// Regression test (bug found here): with a hook enabled, the promise
// `before` hook pushes the promise's id and its `after` hook never runs.
TEST_F(TerminateTest,
       TerminationInAPromiseReactionWithHooksLeavesTheStackEmpty) {
  RunString(
      "asyncHooks.createHook({init() {}}).enable();"
      "Promise.resolve().then(() => { terminateNow(); for (;;) {} });");
  runtime()->RunMicrotasks(context());
  EXPECT_TRUE(isolate()->IsExecutionTerminating());
  Recover();
  ExpectAtRest("after the termination");
}

// Runs `source` while a watchdog thread calls TerminateExecution() once,
// after 20 ms. Returns "terminated", or what the script did instead.
std::string RunWithOneTermination(TestIsolate& env, const char* source) {
  v8::Isolate* isolate = env.isolate();
  std::thread watchdog([isolate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    isolate->TerminateExecution();
  });
  v8::HandleScope scope(isolate);
  v8::Local<v8::Context> context = env.context();
  v8::Context::Scope context_scope(context);
  std::string outcome;
  {
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::Value> result;
    if (v8::Script::Compile(
            context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
            .ToLocalChecked()
            ->Run(context)
            .ToLocal(&result)) {
      outcome = "returned " + ToString(isolate, result);
    } else if (try_catch.HasTerminated()) {
      outcome = "terminated";
    } else {
      outcome = "threw " + ToString(isolate, try_catch.Exception());
    }
  }
  watchdog.join();
  isolate->CancelTerminateExecution();
  env.runtime()->RunMicrotasks(context);
  return outcome;
}

// V8 10.2 reports an exception thrown by a context promise hook as a message
// and clears it (NativeContext::RunPromiseHook), and a termination is an
// exception. A watchdog's TerminateExecution must still stop a runaway loop
// that creates promises while the thenable repair's or the hooks' promise
// hooks are installed (passes today).
TEST_F(TerminateTest, TerminationIsNotSwallowedByTheThenableRepair) {
  EXPECT_EQ(RunWithOneTermination(env(), R"JS(
    als.run(1, () => {
      const start = Date.now();
      for (;;) {
        Promise.resolve();
        if (Date.now() - start > 1000) return 'still running after 1 s';
      }
    })
  )JS"),
            "terminated");
  ExpectAtRest("after the termination");
}

TEST_F(TerminateTest, TerminationIsNotSwallowedByHookPromiseEvents) {
  EXPECT_EQ(RunWithOneTermination(env(), R"JS(
    asyncHooks.createHook({init() {}}).enable();
    (() => {
      const start = Date.now();
      for (;;) {
        Promise.resolve();
        if (Date.now() - start > 1000) return 'still running after 1 s';
      }
    })()
  )JS"),
            "terminated");
  ExpectAtRest("after the termination");
}

// A termination that lands in a `before` hook called by CallbackScope from
// C++ stops the host's callback too (passes today).
TEST_F(TerminateTest, TerminationInABeforeHookIsNotLost) {
  RunString(
      "globalThis.armed = true;"
      "asyncHooks.createHook({before() {"
      "  if (armed) { armed = false; terminateNow(); for (;;) {} }"
      "}}).enable();");
  AsyncResource host(context(), "Host");
  bool callback_ran = false;
  bool callback_terminated = false;
  {
    v8::TryCatch outer(isolate());
    {
      CallbackScope scope(&host);
      v8::TryCatch try_catch(isolate());
      v8::Local<v8::Script> script;
      v8::Local<v8::Value> result;
      callback_ran = v8::Script::Compile(
                         context(), v8::String::NewFromUtf8Literal(
                                        isolate(), "globalThis.ran = true"))
                         .ToLocal(&script) &&
                     script->Run(context()).ToLocal(&result);
      if (!callback_ran)
        scope.MarkAsFailed();
      callback_terminated = try_catch.HasTerminated();
    }
    // V8 10.2 reports the termination to every TryCatch on the way out. From
    // V8 12 a termination ends at the innermost TryCatch with no JavaScript
    // left above it (compat::kV8EndsTerminationAtTheTop): CallbackScope
    // terminates again, and the callback's own TryCatch sees that.
    if (compat::kV8EndsTerminationAtTheTop)
      EXPECT_TRUE(callback_terminated);
    else
      EXPECT_TRUE(outer.HasTerminated());
  }
  EXPECT_FALSE(callback_ran) << "the callback ran after its before hook was "
                                "terminated";
  Recover();
  ExpectAtRest("after the termination");
}

// Regression test for a bug the libFuzzer target (test/fuzz_native) found:
// ~CallbackScope decided whether the isolate is terminating *before* it
// called the `after` hooks; a termination inside an `after` hook (a watchdog,
// or a host whose hook-error handler terminates) skips JavaScript's pops
// there, and the scope then reported "async context stack corruption" and
// aborted the process instead of unwinding. Run in a child process so that an
// abort fails only this test.
using TerminateDeathTest = TerminateTest;
TEST_F(TerminateDeathTest, TerminationInAnAfterHookOfACallbackScopeIsUnwound) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RunString(R"JS(
          globalThis.armed = false;
          const inner = new AsyncResource('Inner');
          asyncHooks.createHook({after() {
            if (!armed) return;
            armed = false;
            inner.runInAsyncScope(() => { terminateNow(); for (;;) {} });
          }}).enable();
        )JS");
        AsyncResource host(context(), "Host");
        {
          v8::TryCatch outer(isolate());
          CallbackScope scope(&host);
          RunString("armed = true");
        }
        Recover();
        ExpectAtRest("after the termination");
        // _Exit: the fixture's isolate is still alive, and LeakSanitizer's
        // exit-time check would report V8's memory.
        std::fflush(nullptr);
        std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A terminated host callback is unwound by its CallbackScope (passes today;
// here so that a fix for the bugs above keeps it).
TEST_F(TerminateTest, TerminationInsideAHostCallbackIsUnwoundByTheScope) {
  RunString("asyncHooks.createHook({init() {}}).enable();");
  AsyncResource host(context(), "Host");
  {
    CallbackScope scope(&host);
    v8::TryCatch try_catch(isolate());
    v8::Local<v8::Value> result;
    EXPECT_FALSE(v8::Script::Compile(
                     context(), v8::String::NewFromUtf8Literal(isolate(), R"JS(
                       als.run('in-callback', () =>
                           new AsyncResource('X').runInAsyncScope(() => {
                             terminateNow(); for (;;) {}
                           }));
                     )JS"))
                     .ToLocalChecked()
                     ->Run(context())
                     .ToLocal(&result));
    scope.MarkAsFailed();
  }
  Recover();
  ExpectAtRest("after the termination");
}

// ---------------------------------------------------------------------------
// TerminateExecution at random points.

struct TerminateStats {
  int rounds = 0;
  int terminated = 0;
};

// Runs rounds of requests while a watchdog thread terminates the isolate
// after a random delay; after each round, terminated or not, the host
// cancels the termination and the next script must start at the root frame
// with an empty execution stack, and a clean round must have no cross-talk.
void TerminateAtRandomPoints(RequestLoop::Options options,
                             uint32_t seed,
                             int iterations,
                             TerminateStats* stats) {
  Reports reports;
  TestIsolate env(reports.Options());
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  RequestLoop loop(isolate, env.runtime(), env.context(), seed, options);
  ASSERT_TRUE(loop.Install());
  env.Run("globalThis.probes = [__requestId];");
  std::mt19937 rng(seed);
  const int requests = 100;
  // Calibrate: how long an undisturbed round takes here.
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(loop.RunRound(1, requests, seed), RequestLoop::Outcome::kIdle);
  ASSERT_EQ(loop.CheckRound(), "");
  auto round_us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  int next_id = 1 + requests;
  // The watchdog's delay is random below max_delay_us, which adapts so that
  // about half of the rounds are terminated.
  double max_delay_us = static_cast<double>(round_us);
  for (int i = 0; i < iterations; i++) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    std::atomic<bool> round_over{false};
    std::atomic<bool> fired{false};
    auto delay = std::chrono::microseconds(
        rng() % (static_cast<uint64_t>(max_delay_us) + 1));
    std::thread watchdog([&] {
      auto until = std::chrono::steady_clock::now() + delay;
      while (!round_over.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
      if (!round_over.load()) {
        fired = true;
        isolate->TerminateExecution();
      }
    });
    RequestLoop::Outcome outcome = loop.RunRound(next_id, requests, rng());
    next_id += requests;
    round_over = true;
    watchdog.join();
    // V8 forgets a termination once no JavaScript is left on the stack (one
    // that hit a platform task or the last checkpoint is invisible here), so
    // the watchdog says whether it fired.
    bool terminated = outcome == RequestLoop::Outcome::kTerminated ||
                      isolate->IsExecutionTerminating() || fired.load();
    // A termination requested after the round ended is still pending; the
    // host cancels it either way, and ends the macrotask as usual.
    isolate->CancelTerminateExecution();
    env.runtime()->RunMicrotasks(env.context());
    stats->rounds++;
    if (terminated) {
      stats->terminated++;
      loop.DropPendingTimers();
      max_delay_us *= 1.25;
    } else {
      max_delay_us *= 0.8;
      EXPECT_EQ(loop.CheckRound(), "");
    }
    // The next macrotask.
    EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);
    EXPECT_EQ(env.runtime()->ExecutionAsyncId(), 1);
    EXPECT_EQ(env.RunString(
                  "[asyncHooks.executionAsyncId(), asyncHooks.triggerAsyncId(),"
                  " String(__requestId.get())].join()"),
              "1,0,undefined");
    if (terminated) {
      // Whatever the terminated round left behind, a new round is clean.
      EXPECT_EQ(loop.RunRound(next_id, requests, rng()),
                RequestLoop::Outcome::kIdle);
      next_id += requests;
      EXPECT_EQ(loop.CheckRound(), "") << "in the round after a termination";
    }
    if (::testing::Test::HasFailure())
      break;
  }
  loop.DropPendingTimers();
  EXPECT_EQ(reports.hook_errors.size(), 0u) << reports.Summary();
}

TEST(FaultTerminateTest, TerminateAtRandomPointsInRequestsStartedByTheHost) {
  TerminateStats stats;
  RequestLoop::Options options;
  options.start_in_callback_scope = true;
  TerminateAtRandomPoints(options, 11, Scaled(100, 0.5, 0.25), &stats);
  std::printf("[ faults   ] %d rounds, %d terminated\n", stats.rounds,
              stats.terminated);
  EXPECT_GT(stats.terminated, 0);
}

TEST(FaultTerminateTest, TerminateAtRandomPointsInRequestsWithHooks) {
  TerminateStats stats;
  RequestLoop::Options options;
  options.start_in_callback_scope = true;
  options.hooks = true;
  TerminateAtRandomPoints(options, 12, Scaled(100, 0.5, 0.25), &stats);
  std::printf("[ faults   ] %d rounds, %d terminated\n", stats.rounds,
              stats.terminated);
  EXPECT_GT(stats.terminated, 0);
}

TEST(FaultTerminateTest, TerminateAtRandomPointsInRequestsStartedAtTopLevel) {
  TerminateStats stats;
  RequestLoop::Options options;
  options.start_in_callback_scope = false;
  options.hooks = true;
  TerminateAtRandomPoints(options, 13, Scaled(100, 0.5, 0.25), &stats);
  std::printf("[ faults   ] %d rounds, %d terminated\n", stats.rounds,
              stats.terminated);
  EXPECT_GT(stats.terminated, 0);
}

// ---------------------------------------------------------------------------
// Out of memory near the heap limit, inside `run`.

// An isolate with a small old generation (`--max-old-space-size` for one
// isolate), a runtime and an installed context.
class SmallHeapIsolate {
 public:
  explicit SmallHeapIsolate(size_t max_old_generation_bytes)
      : allocator_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {
    v8::Isolate::CreateParams params;
    params.array_buffer_allocator = allocator_.get();
    params.constraints.set_max_old_generation_size_in_bytes(
        max_old_generation_bytes);
    isolate_ = host::NewIsolate(params);
    isolate_->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handle_scope(isolate_);
    RuntimeOptions options;
    options.platform = TestPlatform();
    runtime_ = Runtime::Create(isolate_, options);
    v8::Local<v8::Context> context = v8::Context::New(isolate_);
    EXPECT_TRUE(runtime_->Install(context).FromMaybe(false));
    context_.Reset(isolate_, context);
  }
  ~SmallHeapIsolate() {
    {
      v8::Isolate::Scope isolate_scope(isolate_);
      context_.Reset();
      runtime_.reset();
    }
    host::DisposeIsolate(isolate_);
  }
  v8::Isolate* isolate() { return isolate_; }
  Runtime* runtime() { return runtime_.get(); }
  v8::Local<v8::Context> context() { return context_.Get(isolate_); }

 private:
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_;
  std::unique_ptr<Runtime> runtime_;
  v8::Global<v8::Context> context_;
};

// Fills the heap inside `als.run`, inside runInAsyncScope, inside a host
// callback, with hooks enabled.
const char kFillTheHeap[] = R"JS(
  const als = new AsyncLocalStorage();
  asyncHooks.createHook({init() {}, before() {}, after() {}, destroy() {}})
      .enable();
  globalThis.hog = [];
  als.run({request: 1}, () => {
    new AsyncResource('Hog').runInAsyncScope(() => {
      for (;;) hog.push(new Array(100000).fill(als.getStore()));
    });
  });
)JS";

Runtime* g_oom_runtime = nullptr;

[[noreturn]] void OnOutOfMemory(const char* location, bool is_heap_oom) {
  // Only async-signal-safe work here: the heap is gone.
  std::fprintf(
      stderr,
      "host OOM handler reached: heap=%d, execution stack depth %zu, "
      "execution async id %s1\n",
      is_heap_oom ? 1 : 0,
      g_oom_runtime ? g_oom_runtime->ExecutionStackDepth() : 0,
      g_oom_runtime && g_oom_runtime->ExecutionAsyncId() > 1 ? ">" : "=");
  std::fflush(stderr);
  std::_Exit(42);
}

void RunOutOfMemory() {
  SmallHeapIsolate env(16 * 1024 * 1024);
  v8::Isolate* isolate = env.isolate();
  host_compat::SetOOMErrorHandler(isolate, OnOutOfMemory);
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  g_oom_runtime = env.runtime();
  v8::Context::Scope context_scope(env.context());
  AsyncResource host(env.context(), "Host");
  CallbackScope scope(&host);
  (void)v8::Script::Compile(
      env.context(), v8::String::NewFromUtf8Literal(isolate, kFillTheHeap))
      .ToLocalChecked()
      ->Run(env.context())
      .IsEmpty();
  std::fprintf(stderr, "the script returned\n");
  std::fflush(nullptr);
  std::_Exit(1);
}

// Regression test (bug found here): AsyncResource(context, type) documents
// only that the isolate must be entered, but with no `resource` it called
// v8::Object::New(isolate), which needs an entered context: a host creating a
// timer from its event loop, outside of any context, crashed (SIGSEGV). Run
// in a child process so that a crash fails this test only.
TEST(FaultDeathTest, HostAsyncResourceCreatedOutsideItsContext) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        TestIsolate env;
        v8::Isolate::Scope isolate_scope(env.isolate());
        v8::HandleScope handle_scope(env.isolate());
        // No Context::Scope: the host's loop is between callbacks.
        {
          AsyncResource timer(env.context(), "Timeout");
          CallbackScope scope(&timer);
        }
        std::fprintf(stderr, "created and ran\n");
        std::fflush(nullptr);
        std::_Exit(0);  // the isolate is alive: skip LeakSanitizer's check
      },
      ::testing::ExitedWithCode(0), "created and ran");
}

TEST(FaultDeathTest, OutOfMemoryInsideRunReachesTheHostsHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Depth 2: the host's scope and runInAsyncScope; nothing unwound or
  // corrupted before the handler runs.
  EXPECT_EXIT(RunOutOfMemory(), ::testing::ExitedWithCode(42),
              "host OOM handler reached: heap=1, execution stack depth 2, "
              "execution async id >1");
}

struct NearLimit {
  v8::Isolate* isolate;
  Runtime* runtime;
  int calls = 0;
  size_t depth_seen = 0;
};

size_t OnNearHeapLimit(void* data, size_t current_limit, size_t) {
  auto* near = static_cast<NearLimit*>(data);
  near->calls++;
  near->depth_seen = near->runtime->ExecutionStackDepth();
  // A host's usual answer: stop the script, and give it room to unwind.
  near->isolate->TerminateExecution();
  return current_limit * 2;
}

TEST(FaultOomTest, NearHeapLimitTerminationInsideRunRecovers) {
  SmallHeapIsolate env(16 * 1024 * 1024);
  v8::Isolate* isolate = env.isolate();
  v8::Isolate::Scope isolate_scope(isolate);
  v8::HandleScope handle_scope(isolate);
  NearLimit near{isolate, env.runtime()};
  isolate->AddNearHeapLimitCallback(OnNearHeapLimit, &near);
  v8::Local<v8::Context> context = env.context();
  v8::Context::Scope context_scope(context);
  {
    AsyncResource host(context, "Host");
    v8::TryCatch outer(isolate);
    {
      CallbackScope scope(&host);
      v8::TryCatch try_catch(isolate);
      EXPECT_TRUE(v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                                   isolate, kFillTheHeap))
                      .ToLocalChecked()
                      ->Run(context)
                      .IsEmpty());
      EXPECT_TRUE(try_catch.HasTerminated());
      scope.MarkAsFailed();
    }
  }
  isolate->RemoveNearHeapLimitCallback(OnNearHeapLimit, 0);
  isolate->CancelTerminateExecution();
  EXPECT_GE(near.calls, 1);
  EXPECT_EQ(near.depth_seen, 2u);  // the host's scope and runInAsyncScope
  v8::Local<v8::Value> result;
  ASSERT_TRUE(
      v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                       isolate, "globalThis.hog = null"))
          .ToLocalChecked()
          ->Run(context)
          .ToLocal(&result));
  isolate->RequestGarbageCollectionForTesting(
      v8::Isolate::kFullGarbageCollection);
  env.runtime()->RunMicrotasks(context);
  EXPECT_EQ(env.runtime()->ExecutionStackDepth(), 0u);
  EXPECT_EQ(env.runtime()->ExecutionAsyncId(), 1);
  // A fresh script at the root frame, and a request after it.
  RequestLoop loop(isolate, env.runtime(), context, 5, {});
  ASSERT_TRUE(loop.Install());
  ASSERT_TRUE(
      v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                       isolate,
                                       "[asyncHooks.executionAsyncId(), "
                                       "String(__requestId.get())].join()"))
          .ToLocalChecked()
          ->Run(context)
          .ToLocal(&result));
  EXPECT_EQ(ToString(isolate, result), "1,undefined");
  EXPECT_EQ(loop.RunRound(1, 50, 1), RequestLoop::Outcome::kIdle);
  EXPECT_EQ(loop.CheckRound(), "");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
