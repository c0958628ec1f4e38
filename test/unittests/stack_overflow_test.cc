// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Stack overflow at every API entry point, and in hooks: catchable, and the
// frame and the execution ids are what they were afterwards.

#include <string>

#include "test/unittests/reporting_fixture.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace test {
namespace {

using StackOverflowTest = ReportingTest;

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

TEST_F(StackOverflowTest, StackOverflowInsideRunIsCatchable) {
  EXPECT_EQ(RunString(R"JS(
    (() => {
      const out = [];
      const als = new AsyncLocalStorage();
      function recurse(n) { return als.run(n, () => recurse(n + 1)); }
      try { recurse(0); } catch (e) { out.push(e instanceof RangeError); }
      out.push(String(als.getStore()));
      return out.join();
    })()
  )JS"),
            "true,undefined");
  ExpectAtRest("after the overflow");
}

TEST_F(StackOverflowTest, StackOverflowAtEveryEntryPointIsCatchable) {
  EXPECT_EQ(RunStackOverflowProbe(env(), /*with_hooks=*/false), "");
  EXPECT_EQ(reports_.Summary(), "");
  ExpectAtRest("after the probe");
}

// With hooks enabled, an overflow of the program's depth inside a hook
// callback is the program's RangeError (as in Node.js 24), never a hook
// error: the state is restored and nothing is reported.
TEST_F(StackOverflowTest,
       StackOverflowAtEveryEntryPointWithHooksRestoresState) {
  EXPECT_EQ(RunStackOverflowProbe(env(), /*with_hooks=*/true), "");
  EXPECT_TRUE(reports_.hook_errors.empty()) << reports_.Summary();
  EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
  ExpectAtRest("after the probe");
}

// A hook called at the stack limit overflows: the program, which is that
// deep, gets the RangeError where it can catch it.
TEST_F(StackOverflowTest, HookAtTheStackLimitGivesTheProgramItsRangeError) {
  EXPECT_EQ(RunString(R"JS(
    (() => {
      const hook = asyncHooks.createHook({init() {}}).enable();
      let caught = 0;
      (function recurse() {
        try { recurse(); } catch (e) { caught++; }
        try { new AsyncResource('X'); } catch (e) { caught++; }
      })();
      hook.disable();
      return caught > 0;
    })()
  )JS"),
            "true");
  EXPECT_TRUE(reports_.hook_errors.empty()) << reports_.Summary();
  EXPECT_TRUE(reports_.uncaught.empty()) << reports_.Summary();
  ExpectAtRest("after the overflows");
}

// A hook that overflows the stack by itself, from a shallow stack, is a
// hook error (as in Node), and the handler gets the RangeError's message
// (converting it to a string must not call into JavaScript at the same
// depth, which would give "<unprintable>").
TEST_F(StackOverflowTest, HookErrorFromStackOverflowHasAReadableMessage) {
  RunString(R"JS(
    asyncHooks.createHook({init() { (function r() { r(); })(); }}).enable();
    new AsyncResource('X');
  )JS");
  ASSERT_EQ(reports_.hook_errors.size(), 1u) << reports_.Summary();
  EXPECT_EQ(reports_.hook_errors[0],
            "init|RangeError: Maximum call stack size exceeded");
}

// Destroy hooks called by a host at the program's depth (a native function
// that calls Runtime::EmitPendingDestroys, as hosts may): an overflow
// inside the destroy callback, at hook call depth 1, is the program's
// RangeError, never a hook error; and the count of hook calls is intact
// afterwards (a destroy that recurses through the hooks from a shallow
// stack is still a hook error). The callback makes 600 calls of its own:
// the runtime enters JavaScript from C++, which wants some 40 KB of
// headroom, so only an overflow that deep inside the callback leaves the
// layer's catch room to look at it.
TEST_F(StackOverflowTest,
       DestroyHookAtTheStackLimitGivesTheProgramItsRangeError) {
  SetFunction(
      context(), "emitNow",
      [](const v8::FunctionCallbackInfo<v8::Value>&) {
        FunctionData<Runtime>()->EmitPendingDestroys();
      },
      runtime());
  EXPECT_EQ(RunString(R"JS(
    (() => {
      function chain(n) { return n === 0 ? 0 : chain(n - 1) + 1; }
      let ran = 0;
      const hook = asyncHooks.createHook({
        destroy() { ran++; chain(600); },
      }).enable();
      let caught = 0;
      (function deep() {
        try { deep(); } catch {}
        try {
          new AsyncResource('D').emitDestroy();
          emitNow();
        } catch (e) {
          if (!(e instanceof RangeError)) throw e;
          caught++;
        }
      })();
      hook.disable();
      return `${caught > 0} ${ran > 0}`;
    })()
  )JS"),
            "true true");
  EXPECT_TRUE(reports_.hook_errors.empty()) << reports_.Summary();
  ExpectAtRest("after the overflows");
}

// A hook callback that recurses through the hooks (from a shallow stack)
// until V8's call of the layer's promise hook overflows: V8 calls promise
// hooks from C++, whose entry into JavaScript fails some 40 KB before the
// limit, so the overflow lands there, inside the recursing callback at hook
// call depth 2 or more, and C++ reports it as a hook error named by the kind
// the layer says is running (src/message_routing.cc). Each scenario names
// the callback that recurses; every hook error of a scenario (V8's, and the
// ones the recursion then throws in JavaScript at the limit) names that
// kind. (Not covered: destroy, whose callbacks cannot recurse through
// destroy hooks, since no batch is emitted inside a batch; and the kind
// restored after a callback of
// another kind returns inside the recursing one. There the recursion also
// overflows in JavaScript inside that other callback, a hook error rightly
// named by it, so the names cannot tell the two apart.)
TEST_F(StackOverflowTest, OverflowInAPromiseHookNamesTheRunningHook) {
  // name: the expected kind, then the script.
  const char* const kScenarios[][2] = {
      // Recursion through the callback's own kind.
      {"before",
       "const r = new AsyncResource('R');"
       "h = asyncHooks.createHook({before() {"
       "  Promise.resolve(); r.runInAsyncScope(() => {}); }}).enable();"
       "r.runInAsyncScope(() => {});"},
      {"after",
       "const r = new AsyncResource('R');"
       "h = asyncHooks.createHook({after() {"
       "  Promise.resolve(); r.runInAsyncScope(() => {}); }}).enable();"
       "r.runInAsyncScope(() => {});"},
      {"promiseResolve",
       "h = asyncHooks.createHook({promiseResolve() { Promise.resolve(1); }})"
       "  .enable();"
       "Promise.resolve(1);"},
      // Init's recursion started by a before callback: the running kind is
      // init inside it, not the outer before.
      {"init",
       "const r = new AsyncResource('R'); let started = false;"
       "h = asyncHooks.createHook({"
       "  init() { if (started) Promise.resolve(); },"
       "  before() { if (!started) { started = true; Promise.resolve(); } },"
       "}).enable();"
       "r.runInAsyncScope(() => {});"},
  };
  for (const auto& [kind, script] : kScenarios) {
    SCOPED_TRACE(script);
    reports_.hook_errors.clear();
    RunString(std::string("(() => { let h; try {") + script +
              "} finally { h?.disable(); } })()");
    ASSERT_FALSE(reports_.hook_errors.empty()) << "no hook error";
    for (const std::string& error : reports_.hook_errors) {
      EXPECT_EQ(error.substr(0, error.find('|')), kind) << error;
    }
    reports_.uncaught.clear();
    env().runtime()->RunMicrotasks(context());
    ExpectAtRest("after the scenario");
  }
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
