// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Propagation: AsyncLocalStorage and AsyncContext values through run,
// promise reactions, await, thenables and queueMicrotask on V8's real
// microtask queue.

#include <string>

#include "src/v8_compat.h"
#include "test/unittests/reporting_fixture.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

using ThenableTest = ReportingTest;

class PropagationTest : public V8Test {
 protected:
  // Runs `source`, drains microtasks, then returns String(globalThis.out).
  std::string Drain(const std::string& source) {
    env().RunAndDrain("globalThis.out = []; " + source);
    return RunString("out.join(',')");
  }
};

TEST_F(PropagationTest, RunGetStoreAndRestore) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    out.push(als.getStore());
    out.push(als.run(1, (a, b) => als.getStore() + a + b, 10, 100));
    out.push(als.getStore());
  )JS"),
            ",111,");
}

// A FinalizationRegistry cleanup runs in the frame in which the registry
// was constructed (not where the target was registered), and V8's cleanup
// task leaves the frame it found: a host that runs the platform's tasks with
// nothing of its own around them sees the root afterwards.
TEST_F(PropagationTest, FinalizationRegistryCleanupRunsInTheConstructionFrame) {
  RunString(
      "globalThis.als = new AsyncLocalStorage();"
      "globalThis.seen = [];"
      "globalThis.registry = als.run('constructed', () =>"
      "    new FinalizationRegistry((held) =>"
      "        seen.push(held + ' ' + als.getStore())));"
      "als.run('registered', () => registry.register({}, 'held')); 'ok'");
  env().CollectGarbage();
  while (host::PumpMessageLoop(isolate())) {
  }
  EXPECT_EQ(RunString("seen.join()"), "held constructed");
  EXPECT_EQ(RunString("String(als.getStore())"), "undefined");
}

TEST_F(PropagationTest, RunRestoresOnThrowAndEnterWithDoesNotLeak) {
  EXPECT_EQ(Drain(R"JS(
    const a = new AsyncLocalStorage(), b = new AsyncLocalStorage();
    try { a.run(1, () => { throw new Error('x'); }); } catch {}
    out.push(a.getStore());
    a.run(1, () => b.enterWith(2));
    out.push(b.getStore());
  )JS"),
            ",");
}

// A function the host queues itself (MicrotaskQueue::EnqueueMicrotask: no
// hook runs around it, and V8 10.2 leaves the slot as its job set it) enters
// a store: Runtime::RunMicrotasks leaves the root frame current after the
// checkpoint, so the host's next script does not see that store.
TEST_F(PropagationTest, EnterWithInAHostQueuedJobDoesNotReachTheNextScript) {
  Run("globalThis.als = new AsyncLocalStorage();");
  v8::Local<v8::Function> job = CompileFunction(
      context(),
      "(function () {"
      "  als.enterWith('job'); globalThis.inJob = String(als.getStore()); })");
  context()->GetMicrotaskQueue()->EnqueueMicrotask(isolate(), job);
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("inJob"), "job");
  EXPECT_EQ(RunString("String(als.getStore())"), "undefined");
}

TEST_F(PropagationTest, DefaultValueAndPresentUndefined) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage({defaultValue: 'd', name: 'n'});
    out.push(als.getStore(), als.name);
    als.run(undefined, () => out.push(String(als.getStore())));
    out.push(new AsyncLocalStorage().name === '');
  )JS"),
            "d,n,undefined,true");
}

TEST_F(PropagationTest, ExitHidesFromSyncAndAsync) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    als.run(1, () => {
      als.exit(() => {
        out.push(String(als.getStore()));
        Promise.resolve().then(() => out.push('then:' + als.getStore()));
      });
      out.push(als.getStore());
    });
  )JS"),
            "undefined,1,then:undefined");
}

TEST_F(PropagationTest, DisableIsInstanceWide) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    als.run(1, () => {
      als.disable();
      out.push(String(als.getStore()));
      als.run(2, () => out.push(als.getStore()));
    });
  )JS"),
            "undefined,2");
}

TEST_F(PropagationTest, PromiseReactionsUseTheFrameOfThen) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    let resolve;
    const p = als.run('create', () => new Promise((r) => { resolve = r; }));
    als.run('then', () => p.then(() => out.push(als.getStore())));
    als.run('resolve', () => resolve());
    als.run('all', () => Promise.all([p, 1]).then(() => out.push(als.getStore())));
  )JS"),
            "then,all");
}

TEST_F(PropagationTest, AwaitResumesInTheAwaitingFrame) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    async function f(id) {
      await null;
      out.push(id + ':' + als.getStore());
      await new Promise((r) => r());
      out.push(id + ':' + als.getStore());
    }
    als.run('a', () => f('a'));
    als.run('b', () => f('b'));
    out.push('sync:' + als.getStore());
  )JS"),
            "sync:undefined,a:a,b:b,a:a,b:b");
}

TEST_F(PropagationTest, ThenablesRunInTheAwaitingFrame) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    const thenable = { then(resolve) { out.push('then:' + als.getStore()); resolve(1); } };
    als.run('await', async () => { await thenable; });
    als.run('resolve', () => new Promise((r) => r(thenable)));
    als.run('return', async () => { await null; return thenable; });
  )JS"),
            "then:await,then:resolve,then:return");
}

// V8 >= 12.4 carries the frame into thenable jobs itself, so there is no
// repair to turn off: then() still sees the awaiting frame (documented in
// docs/semantics.md, "Per V8 version").
TEST_F(PropagationTest, ThenableRepairCanBeTurnedOff) {
  runtime()->SetThenableRepair(false);
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    const thenable = { then(resolve) { out.push('then:' + als.getStore()); resolve(1); } };
    als.run('await', async () => { await thenable; });
  )JS"),
            compat::kV8PropagatesThenables ? "then:await" : "then:undefined");
}

TEST_F(PropagationTest, QueueMicrotaskKeepsTheCallersFrame) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    queueMicrotask(() => out.push('root:' + als.getStore()));
    als.run(7, () => queueMicrotask(() => out.push('run:' + als.getStore())));
    queueMicrotask(() => out.push('after:' + als.getStore()));
  )JS"),
            "root:undefined,run:7,after:undefined");
}

TEST_F(PropagationTest, QueueMicrotaskValidatesItsArgument) {
  EXPECT_EQ(RunString(R"JS(
    try { queueMicrotask(1); } catch (e) { e.code + '|' + e.name + '|' + e.message }
  )JS"),
            "ERR_INVALID_ARG_TYPE|TypeError|The \"callback\" argument must be "
            "of type function. Received type number (1)");
}

TEST_F(PropagationTest, AsyncContextVariableAndSnapshot) {
  EXPECT_EQ(Drain(R"JS(
    const v = new AsyncContext.Variable({name: 'v', defaultValue: 0});
    const als = new AsyncLocalStorage();
    out.push(v.name, v.get());
    const snap = als.run('s', () => v.run(1, () => new AsyncContext.Snapshot()));
    snap.run(() => out.push(v.get() + als.getStore()));
    const wrapped = v.run(2, () => AsyncContext.Snapshot.wrap(function () { return v.get() + this.x; }));
    out.push(wrapped.call({x: 'x'}));
    v.run(3, async () => { await null; out.push('await:' + v.get()); });
  )JS"),
            "v,0,1s,2x,await:3");
}

TEST_F(PropagationTest, BindAndSnapshotPinTheCreatingFrame) {
  EXPECT_EQ(Drain(R"JS(
    const als = new AsyncLocalStorage();
    const bound = als.run(1, () => AsyncLocalStorage.bind(() => als.getStore()));
    const snap = als.run(2, () => AsyncLocalStorage.snapshot());
    out.push(bound(), snap(() => als.getStore()), String(als.getStore()));
  )JS"),
            "1,2,undefined");
}

TEST_F(PropagationTest, NestedRunsRestoreEveryLevelOnThrow) {
  EXPECT_EQ(Drain(R"JS(
    const stores = Array.from({length: 10}, () => new AsyncLocalStorage());
    function nest(i) {
      if (i === 10) throw new Error('deep');
      return stores[i].run(i, () => { try { return nest(i + 1); } finally { out.push(stores[i].getStore()); } });
    }
    try { nest(0); } catch (e) { out.push(e.message); }
    out.push(stores.every((s) => s.getStore() === undefined));
  )JS"),
            "9,8,7,6,5,4,3,2,1,0,deep,true");
}

// A promise created in one installed context and awaited in
// another: the awaiting code keeps its own context's stores.
TEST_F(PropagationTest, PromiseOfOneContextAwaitedInAnother) {
  v8::Local<v8::Context> a = context();
  v8::Local<v8::Context> b = v8::Context::New(isolate());
  ASSERT_TRUE(runtime()->Install(b).FromMaybe(false));
  Run("globalThis.als = new AsyncLocalStorage();"
      "globalThis.make = () => als.run('a', () => Promise.resolve('value'));");
  b->Global()
      ->Set(b, v8::String::NewFromUtf8Literal(isolate(), "make"), Run("make"))
      .Check();
  RunStringIn(b,
              "globalThis.als = new AsyncLocalStorage(); globalThis.seen = [];"
              "als.run('b', async () => {"
              "  const v = await make();"
              "  seen.push(v + ':' + als.getStore());"
              "}); ''");
  runtime()->RunMicrotasks(b);
  runtime()->RunMicrotasks(a);
  EXPECT_EQ(RunStringIn(b, "seen.join()"), "value:b");
}

TEST_F(ThenableTest, ThenMethodsThatThrowRejectInTheAwaitingFrame) {
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

// With the thenable repair off, promise hooks are installed only for hook
// events; the dirty-frame reset in `before` must not clobber the frame V8
// entered for a job captured in a non-root frame.
TEST(ThenableRepairOffTest, EnterWithThenReactionKeepsItsFrameWithEventHooks) {
  RuntimeOptions options;
  options.thenable_repair = false;
  TestIsolate env(std::move(options));
  v8::Isolate::Scope isolate_scope(env.isolate());
  v8::HandleScope handle_scope(env.isolate());
  env.RunAndDrain(R"JS(
    globalThis.out = [];
    const als = new AsyncLocalStorage();
    asyncHooks.createHook({init() {}}).enable();
    Promise.resolve().then(() => out.push('root:' + als.getStore()));
    als.enterWith('x');
    Promise.resolve().then(() => out.push('then:' + als.getStore()));
    (async () => { await null; out.push('await:' + als.getStore()); })();
    Promise.resolve().then(() => { als.enterWith('leak'); });
    Promise.resolve().then(() => out.push('after:' + als.getStore()));
    als.exit(() => queueMicrotask(() => { als.enterWith('bare'); }));
    Promise.resolve().then(() => out.push('afterBare:' + als.getStore()));
  )JS");
  EXPECT_EQ(env.RunString("out.join()"),
            "root:undefined,then:x,await:x,after:x,afterBare:x");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
