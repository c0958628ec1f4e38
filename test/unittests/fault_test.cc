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

#include "libplatform/libplatform.h"
#include "test/unittests/request_workload.h"
#include "test/unittests/v8_fixture.h"
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
      uncaught.push_back(ToString(context->GetIsolate(), exception));
    };
    return options;
  }

  std::string Summary() const {
    std::string out;
    for (const auto& e : hook_errors) out += "hook error: " + e + "\n";
    for (const auto& e : uncaught) out += "uncaught: " + e + "\n";
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
       Object.getPrototypeOf(asyncHooks.executionAsyncResource()) === null,
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
  function deep() { return deep() + 1; }
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
        try { c.call(); } catch (e) { c.caught(e); }
        c.check();`);
      const c = {
        self: recurse,
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
  v8::Local<v8::Function> probe = env.Run(kStackOverflowProbe).As<v8::Function>();
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
  for (const std::string& error : reports_.hook_errors) {
    EXPECT_NE(error.find("RangeError: Maximum call stack size exceeded"),
              std::string::npos)
        << error;
  }
  EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
  ExpectAtRest("after the probe");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
