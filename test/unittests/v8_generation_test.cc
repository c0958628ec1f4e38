// Copyright 2026 the asyncctx authors. All rights reserved.
//
// What asyncctx leaves to V8 on V8 >= 12.4 (compat::kV8PropagatesThenables),
// checked on the real V8 of the build: 10.2 (Debian) repairs thenables with
// promise hooks and wraps queueMicrotask callbacks; 13.6 and 14.6 (inside
// the node binaries) do neither. Expectations are per generation; see
// docs/semantics.md, "Per V8 version".

#include <string>

#include "src/v8_compat.h"
#include "test/unittests/v8_fixture.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-primitive.h"

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace test {
namespace {

int g_promise_inits = 0;

void CountPromiseInit(const v8::FunctionCallbackInfo<v8::Value>&) {
  g_promise_inits++;
}

// Installs a promise init hook of the test's own; asyncctx replaces it only
// if it installs promise hooks itself (Context::SetPromiseHooks).
void InstallProbe(v8::Local<v8::Context> context) {
  context->SetPromiseHooks(
      v8::Function::New(context, CountPromiseInit).ToLocalChecked(), {}, {},
      {});
  g_promise_inits = 0;
}

using V8GenerationTest = V8Test;

TEST_F(V8GenerationTest, NoPromiseHooksUnlessAHookAsksForPromiseEvents) {
  InstallProbe(context());
  RunString(R"JS(
    globalThis.out = [];
    const als = new AsyncLocalStorage();
    const thenable = { then(resolve) { out.push('then:' + als.getStore()); resolve(1); } };
    als.run('await', async () => { await thenable; });
    als.run('micro', () => queueMicrotask(() => out.push('qm:' + als.getStore())));
  )JS");
  runtime()->RunMicrotasks(context());
  EXPECT_EQ(RunString("out.sort().join()"), "qm:micro,then:await");
  int before = g_promise_inits;
  RunString("new Promise(() => {})");
  if (compat::kV8PropagatesThenables) {
    // V8 carried the frame itself; our probe is still the promise hook.
    EXPECT_EQ(g_promise_inits, before + 1);
  } else {
    // V8 10.2: the thenable repair installed asyncctx's promise hooks.
    EXPECT_EQ(g_promise_inits, before);
  }
  // A hook that asks for promise events installs promise hooks everywhere.
  InstallProbe(context());
  RunString("asyncHooks.createHook({init() {}}).enable()");
  RunString("new Promise(() => {})");
  EXPECT_EQ(g_promise_inits, 0);
}

TEST_F(V8GenerationTest, QueueMicrotaskQueuesTheBareFunctionWithNoHook) {
  // The callback's stack shows whether asyncctx wrapped it in a runner.
  RunString(R"JS(
    globalThis.out = [];
    const als = new AsyncLocalStorage();
    function depth() { return new Error().stack.split('\n').length - 1; }
    queueMicrotask(function root() { out.push('root:' + depth()); });
    als.run('x', () => queueMicrotask(function inRun() {
      out.push('run:' + depth() + ':' + als.getStore());
    }));
  )JS");
  runtime()->RunMicrotasks(context());
  std::string out = RunString("out.join()");
  if (compat::kV8PropagatesThenables) {
    // Whatever the frame: the bare function (depth(), then the callback).
    EXPECT_EQ(out, "root:2,run:2:x");
  } else {
    // V8 10.2: inside run() the callback goes through a runner that enters
    // its frame (whether the root-frame callback is bare is the JavaScript
    // layer's choice there, not checked here).
    EXPECT_EQ(out.find("run:2:"), std::string::npos) << out;
    EXPECT_NE(out.find(":x"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
