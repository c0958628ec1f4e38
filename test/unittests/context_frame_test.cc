// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ContextFrame, ContextFrame::Scope, CallbackScope and AsyncResource share
// one mechanism: a resource captures its frame as ContextFrame::Current()
// does, and both scopes enter a captured frame and give back the frame that
// was current, also when it belongs to another context (V8 >= 12 keeps one
// current frame per isolate).

#include <memory>
#include <string>

#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {
namespace {

std::string RunIn(v8::Local<v8::Context> context, const char* source) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Context::Scope scope(context);
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> result;
  if (!v8::Script::Compile(
           context, v8::String::NewFromUtf8(isolate, source).ToLocalChecked())
           .ToLocal(&script) ||
      !script->Run(context).ToLocal(&result)) {
    return "<exception>";
  }
  return *v8::String::Utf8Value(isolate, result);
}

class ContextFrameTest : public V8Test {
 protected:
  ContextFrameTest() {
    a_ = context();
    b_ = v8::Context::New(isolate());
    EXPECT_TRUE(runtime()->Install(b_).FromMaybe(false));
    RunIn(a_, "globalThis.als = new AsyncLocalStorage(); ''");
    RunIn(b_, "globalThis.bAls = new AsyncLocalStorage(); ''");
  }

  v8::Local<v8::Context> a_;
  v8::Local<v8::Context> b_;
};

// A resource and a ContextFrame captured at the same point enter the same
// stores.
TEST_F(ContextFrameTest, ResourceCapturesItsFrameAsContextFrameDoes) {
  RunIn(a_, "als.enterWith('captured'); ''");
  ContextFrame frame = ContextFrame::Current(a_);
  AsyncResource resource(a_, "Job");
  EXPECT_EQ(resource.context(), frame.context());
  RunIn(a_, "als.enterWith('later'); ''");
  std::string from_frame;
  {
    ContextFrame::Scope scope(frame);
    from_frame = RunIn(a_, "String(als.getStore())");
  }
  std::string from_resource;
  {
    CallbackScope scope(&resource, CallbackScope::Checkpoint::kSkip);
    from_resource = RunIn(a_, "String(als.getStore())");
  }
  EXPECT_EQ(from_frame, "captured");
  EXPECT_EQ(from_resource, "captured");
}

// ContextFrame::Scope gives back the exact previous frame, in its own
// context and in another one.
TEST_F(ContextFrameTest, ContextFrameScopeRestoresTheFrameOfAnotherContext) {
  RunIn(a_, "als.enterWith('from-a'); ''");
  ContextFrame frame = ContextFrame::Current(a_);
  RunIn(a_, "als.enterWith('a-later'); ''");
  v8::Context::Scope enter_b(b_);
  RunIn(b_, "bAls.enterWith('b'); ''");
  {
    ContextFrame::Scope scope(frame);
    EXPECT_EQ(RunIn(a_, "String(als.getStore())"), "from-a");
  }
  // B's frame is current again, whether V8 keeps one frame per context
  // (10.2) or per isolate (>= 12).
  EXPECT_EQ(RunIn(b_, "String(bAls.getStore())"), "b");
}

// A CallbackScope nested in a ContextFrame::Scope gives back the frame the
// ContextFrame::Scope entered, which then gives back B's.
TEST_F(ContextFrameTest, NestedScopesRestoreInOrderAcrossContexts) {
  RunIn(a_, "als.enterWith('outer'); ''");
  ContextFrame outer = ContextFrame::Current(a_);
  RunIn(a_, "als.enterWith('inner'); ''");
  auto resource = std::make_unique<AsyncResource>(a_, "Inner");
  RunIn(a_, "als.enterWith(undefined); ''");
  v8::Context::Scope enter_b(b_);
  RunIn(b_, "bAls.enterWith('b'); ''");
  {
    ContextFrame::Scope outer_scope(outer);
    {
      // Nested in a frame scope but the outermost callback scope: a
      // macrotask, which runs its checkpoint.
      CallbackScope scope(resource.get());
      EXPECT_EQ(RunIn(a_, "String(als.getStore())"), "inner");
      AsyncResource nested_resource(a_, "Nested");
      {
        CallbackScope nested(&nested_resource);
        EXPECT_EQ(RunIn(a_, "String(als.getStore())"), "inner");
        RunIn(a_, "als.enterWith('changed-inside'); ''");
      }
      // The nested scope gave back the exact previous frame.
      EXPECT_EQ(RunIn(a_, "String(als.getStore())"), "inner");
    }
    EXPECT_EQ(runtime()->ExecutionStackDepth(), 0u);
  }
  EXPECT_EQ(RunIn(b_, "String(bAls.getStore())"), "b");
}

// MakeCallback of context A's resource while B is entered with a store:
// the callback sees A's captured store, and B's store is back afterwards,
// once the checkpoint ran (whose promise jobs see A's store).
TEST_F(ContextFrameTest, MakeCallbackGivesBackTheFrameOfAnotherContext) {
  RunIn(a_, "als.enterWith('from-a'); globalThis.seen = []; ''");
  auto resource = std::make_unique<AsyncResource>(a_, "X");
  RunIn(a_, "als.enterWith(undefined); ''");
  v8::Context::Scope enter_b(b_);
  RunIn(b_, "bAls.enterWith('b'); ''");
  v8::Local<v8::Function> fn;
  {
    v8::Context::Scope enter_a(a_);
    fn = v8::Script::Compile(
             a_, v8::String::NewFromUtf8Literal(
                     isolate(),
                     "(function() { seen.push(String(als.getStore()));"
                     "  Promise.resolve().then(() =>"
                     "    seen.push('job:' + als.getStore())); })"))
             .ToLocalChecked()
             ->Run(a_)
             .ToLocalChecked()
             .As<v8::Function>();
  }
  ASSERT_FALSE(
      MakeCallback(resource.get(), v8::Undefined(isolate()), fn, 0, nullptr)
          .IsEmpty());
  EXPECT_EQ(RunIn(a_, "seen.join()"), "from-a,job:from-a");
  EXPECT_EQ(RunIn(b_, "String(bAls.getStore())"), "b");
}

// A frame captured in C++ is entered later without an async resource: no
// hooks, no new async id.
TEST_F(ContextFrameTest, ContextFrameCarriesContextWithoutHooks) {
  Run("globalThis.als = new AsyncLocalStorage(); globalThis.events = [];"
      "asyncHooks.createHook({init(id, type) { events.push(type); },"
      "  before() { events.push('before'); }}).enable();");
  std::unique_ptr<ContextFrame> frame;
  Run("als.enterWith('captured')");
  frame = std::make_unique<ContextFrame>(ContextFrame::Current(context()));
  Run("als.enterWith('later')");
  double id_before = runtime()->ExecutionAsyncId();
  {
    ContextFrame::Scope scope(*frame);
    EXPECT_EQ(RunString("String(als.getStore())"), "captured");
    EXPECT_EQ(runtime()->ExecutionAsyncId(), id_before);
  }
  EXPECT_EQ(RunString("String(als.getStore())"), "later");
  EXPECT_EQ(RunString("events.join()"), "");
  // Move-only value: the moved-to frame enters the same values.
  ContextFrame moved = std::move(*frame);
  frame.reset();
  {
    ContextFrame::Scope scope(moved);
    EXPECT_EQ(RunString("String(als.getStore())"), "captured");
  }
}

// Frames of more than a few stores get indexes, and an index belongs to the
// layer (the context) that made it: key ids are per context. Stores of two
// contexts entered into one frame, in turn, each read back their own values
// from both contexts.
TEST_F(ContextFrameTest, WideFramesOfTwoContextsKeepEachContextsStores) {
  RunIn(a_,
        "globalThis.aStores = Array.from({length: 40},"
        "  () => new AsyncLocalStorage()); ''");
  RunIn(b_,
        "globalThis.bStores = Array.from({length: 40},"
        "  () => new AsyncLocalStorage());"
        "globalThis.enterAll = (fn) => {"
        "  for (let i = 0; i < 40; i++) bStores[i].enterWith('b' + i);"
        "  return fn();"
        "};"
        "globalThis.readB = () => bStores.map((s) => s.getStore()).join();"
        "globalThis.readOther = (stores) =>"
        "  stores.map((s) => s.getStore()).join(); ''");
  v8::Local<v8::Object> b_global = b_->Global();
  v8::Local<v8::Object> a_global = a_->Global();
  for (const char* name : {"enterAll", "readB", "readOther"}) {
    v8::Local<v8::String> key =
        v8::String::NewFromUtf8(isolate(), name).ToLocalChecked();
    v8::Local<v8::Value> fn = b_global->Get(b_, key).ToLocalChecked();
    ASSERT_TRUE(a_global->Set(a_, key, fn).FromMaybe(false));
  }
  std::string expected_a;
  std::string expected_b;
  for (int i = 0; i < 40; i++) {
    expected_a += (i ? "," : "") + std::string("a") + std::to_string(i);
    expected_b += (i ? "," : "") + std::string("b") + std::to_string(i);
  }
  EXPECT_EQ(
      RunIn(a_,
            "new AsyncLocalStorage().run(0, () => {"
            "  for (let i = 0; i < 40; i++) aStores[i].enterWith('a' + i);"
            "  return enterAll(() => {"
            "    for (let i = 0; i < 40; i += 2) aStores[i].enterWith('a' + i);"
            "    return [aStores.map((s) => s.getStore()).join(),"
            "            readB(), readOther(aStores)].join('|');"
            "  });"
            "})"),
      expected_a + "|" + expected_b + "|" + expected_a);
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
