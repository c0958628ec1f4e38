// Copyright 2026 the asyncctx authors. All rights reserved.
//
// host_io: native I/O that completes on a thread pool and resumes JavaScript
// in the request context that started it.
//
// JavaScript calls `host.read(name, callback)`. The host
//   1. creates an asyncctx::AsyncResource ("HostRead") on the isolate's
//      thread, which captures the current context frame (the request's
//      AsyncLocalStorage store) and the caller's async id;
//   2. gives the work, plain C++ data only, to a thread pool: worker threads
//      never touch V8;
//   3. has the worker post the result to the isolate thread's completion
//      queue;
//   4. back on the isolate thread, opens an asyncctx::CallbackScope for the
//      resource and calls the callback in it: the scope enters the captured
//      frame, and when it closes it runs the microtask checkpoint, so the
//      `await` continuations the callback resolves see the request too;
//   5. destroys the resource, which emits the `destroy` hook.
//
// The logger is C++. `host.log(message)` and the completion code in step 4
// read the request id through an asyncctx::ContextKey that wraps the script's
// AsyncLocalStorage (handed over with `host.traceRequests(als)`), so native
// code sees exactly the context JavaScript sees. The unhandled-rejection
// handler runs in the frame in which the promise was rejected, so it can name
// the failing request as well.
//
//   out/Default/host_io [script.js]     (default: kScript below)

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "tools/v8_host/v8_host.h"
#include "v8.h"

namespace {

// Three requests, interleaved: each reads its own entry, then two shared
// fragments in parallel. The third asks for an entry that does not exist and
// does not catch the error.
const char kScript[] = R"js(
const requestContext = new AsyncLocalStorage();
host.traceRequests(requestContext);

function read(name) {
  return new Promise((resolve, reject) => {
    host.read(name, (error, data) => (error ? reject(error) : resolve(data)));
  });
}

async function handle(path) {
  host.log(`GET /${path}`);
  const body = await read(path);
  host.log(`loaded ${body}`);
  const [header, footer] = await Promise.all([read('header'), read('footer')]);
  host.log(`200 OK: ${header}${body}${footer}`);
}

let nextId = 1;
for (const path of ['users/7', 'orders/42', 'missing']) {
  requestContext.run({id: nextId++}, () => handle(path));
}
host.log('all requests started');
)js";

// What the thread pool reads: name -> (contents, latency).
const std::map<std::string, std::pair<std::string, int>> kStorage = {
    {"users/7", {"{user 7}", 30}},
    {"orders/42", {"{order 42}", 10}},
    {"header", {"<", 5}},
    {"footer", {">", 20}},
};

// A fixed set of worker threads running plain C++ jobs in FIFO order. The
// destructor finishes the queued jobs and joins the threads.
class ThreadPool {
 public:
  explicit ThreadPool(int size) {
    for (int i = 0; i < size; ++i)
      threads_.emplace_back([this] { Work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& thread : threads_)
      thread.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Post(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    ready_.notify_one();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty())
          return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// A finished read, as a worker reports it: plain data, no V8 handles.
struct Completion {
  uint64_t operation_id;
  bool ok;
  std::string data;  // the contents, or the error message
};

// The isolate thread's inbox: workers Post(), the isolate thread Wait()s.
class CompletionQueue {
 public:
  void Post(Completion completion) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      completions_.push_back(std::move(completion));
    }
    ready_.notify_one();
  }
  Completion Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !completions_.empty(); });
    Completion completion = std::move(completions_.front());
    completions_.pop_front();
    return completion;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Completion> completions_;
};

std::string ToUtf8(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value text(isolate, value);
  return *text ? std::string(*text, text.length()) : std::string();
}

v8::Local<v8::String> ToV8(v8::Isolate* isolate, const std::string& text) {
  return v8::String::NewFromUtf8(isolate, text.data(),
                                 v8::NewStringType::kNormal,
                                 static_cast<int>(text.size()))
      .ToLocalChecked();
}

// Prints lines tagged with the request id found in the current context.
class Logger {
 public:
  // From now on, read the request from `store` (an AsyncLocalStorage whose
  // stores are objects with an `id`).
  void TrackRequests(v8::Local<v8::Context> context,
                     v8::Local<v8::Value> store) {
    request_key_ = asyncctx::ContextKey::FromJavaScript(context, store);
  }
  bool tracking() const { return request_key_ != nullptr; }

  void Log(v8::Local<v8::Context> context, const std::string& message) const {
    printf("[%s] %s\n", CurrentRequest(context).c_str(), message.c_str());
    fflush(stdout);
  }

 private:
  std::string CurrentRequest(v8::Local<v8::Context> context) const {
    v8::Isolate* isolate = v8::Isolate::GetCurrent();
    v8::TryCatch try_catch(isolate);  // a throwing getter means "unknown"
    v8::Local<v8::Value> store;
    v8::Local<v8::Value> id;
    if (!request_key_ || !request_key_->Get(context).ToLocal(&store) ||
        !store->IsObject() ||
        !store.As<v8::Object>()
             ->Get(context, v8::String::NewFromUtf8Literal(isolate, "id"))
             .ToLocal(&id) ||
        id->IsUndefined()) {
      return "no request";
    }
    return "request " + ToUtf8(isolate, id);
  }

  std::unique_ptr<asyncctx::ContextKey> request_key_;
};

// The `host` global and the loop that completes its operations.
class Host {
 public:
  Host(v8::Isolate* isolate, v8::Platform* platform)
      : isolate_(isolate), platform_(platform), pool_(4) {}

  const Logger& logger() const { return logger_; }

  // Installs `host` into `context`. The host keeps the context for the
  // completions.
  bool Install(v8::Local<v8::Context> context) {
    context_.Reset(isolate_, context);
    v8::Local<v8::External> self = v8::External::New(isolate_, this);
    v8::Local<v8::Object> host = v8::Object::New(isolate_);
    const std::pair<const char*, v8::FunctionCallback> kMethods[] = {
        {"read", Read}, {"log", LogFromJavaScript}, {"traceRequests", Trace}};
    for (const auto& [name, callback] : kMethods) {
      v8::Local<v8::Function> function;
      if (!v8::Function::New(context, callback, self).ToLocal(&function) ||
          host->Set(context, ToV8(isolate_, name), function).IsNothing()) {
        return false;
      }
    }
    return context->Global()
        ->Set(context, ToV8(isolate_, "host"), host)
        .FromMaybe(false);
  }

  // Runs until no operation is pending: each completion, then the platform
  // tasks (asyncctx posts its batched destroy hooks there).
  void Run(asyncctx::Runtime* runtime) {
    while (!pending_.empty()) {
      Complete(completions_.Wait());
      v8::HandleScope handle_scope(isolate_);
      v8::Local<v8::Context> context = context_.Get(isolate_);
      bool ran = false;
      while (asyncctx::host::PumpMessageLoop(isolate_))
        ran = true;
      if (ran)
        runtime->RunMicrotasks(context);
    }
  }

  // Called before the runtime goes: resources and keys belong to it.
  void Dispose() {
    v8::HandleScope handle_scope(isolate_);
    pending_.clear();
    logger_ = Logger();
    context_.Reset();
  }

 private:
  // An operation JavaScript started and the pool has not finished yet.
  struct Operation {
    std::string name;
    std::unique_ptr<asyncctx::AsyncResource> resource;
    v8::Global<v8::Function> callback;
  };

  static Host* From(const v8::FunctionCallbackInfo<v8::Value>& info) {
    return static_cast<Host*>(info.Data().As<v8::External>()->Value());
  }

  // host.read(name, callback(error, data)).
  static void Read(const v8::FunctionCallbackInfo<v8::Value>& info) {
    Host* self = From(info);
    v8::Isolate* isolate = info.GetIsolate();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    // Node's argument errors, built by asyncctx (asyncctx/errors.h).
    if (!info[0]->IsString()) {
      asyncctx::ThrowInvalidArgType(context, "name", "string", info[0]);
      return;
    }
    if (!info[1]->IsFunction()) {
      asyncctx::ThrowInvalidArgType(context, "callback", "function", info[1]);
      return;
    }
    // Step 1: the resource captures the caller's frame, here and now.
    const uint64_t id = self->next_operation_id_++;
    Operation& operation = self->pending_[id];
    operation.name = ToUtf8(isolate, info[0]);
    operation.resource =
        std::make_unique<asyncctx::AsyncResource>(context, "HostRead");
    operation.callback.Reset(isolate, info[1].As<v8::Function>());
    // Steps 2 and 3: the worker sees copies of plain data only.
    self->pool_.Post(
        [name = operation.name, id, completions = &self->completions_] {
          auto entry = kStorage.find(name);
          int latency_ms = entry == kStorage.end() ? 15 : entry->second.second;
          std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
          if (entry == kStorage.end())
            completions->Post({id, false, "no such entry: " + name});
          else
            completions->Post({id, true, entry->second.first});
        });
  }

  // Step 4, on the isolate thread.
  void Complete(Completion done) {
    auto it = pending_.find(done.operation_id);
    Operation operation = std::move(it->second);
    pending_.erase(it);

    v8::HandleScope handle_scope(isolate_);
    v8::Local<v8::Context> context = context_.Get(isolate_);
    v8::Context::Scope context_scope(context);
    v8::Local<v8::Value> argv[2] = {v8::Null(isolate_),
                                    v8::Undefined(isolate_)};
    if (done.ok)
      argv[1] = ToV8(isolate_, done.data);
    else
      argv[0] = v8::Exception::Error(ToV8(isolate_, done.data));
    {
      asyncctx::CallbackScope scope(operation.resource.get());
      // Native code inside the scope sees the request's context too.
      logger_.Log(context, "read '" + operation.name + "' " +
                               (done.ok ? "done" : "failed") +
                               " on a pool thread");
      v8::TryCatch try_catch(isolate_);
      if (operation.callback.Get(isolate_)
              ->Call(context, v8::Undefined(isolate_), 2, argv)
              .IsEmpty()) {
        scope.MarkAsFailed();
        logger_.Log(context,
                    "uncaught " + ToUtf8(isolate_, try_catch.Exception()));
      }
    }  // The checkpoint runs here: the awaits resume in the request.
    // Step 5: operation.resource is destroyed on return.
  }

  // host.log(message).
  static void LogFromJavaScript(
      const v8::FunctionCallbackInfo<v8::Value>& info) {
    v8::Isolate* isolate = info.GetIsolate();
    From(info)->logger_.Log(isolate->GetCurrentContext(),
                            ToUtf8(isolate, info[0]));
  }

  // host.traceRequests(asyncLocalStorage).
  static void Trace(const v8::FunctionCallbackInfo<v8::Value>& info) {
    v8::Isolate* isolate = info.GetIsolate();
    Host* self = From(info);
    self->logger_.TrackRequests(isolate->GetCurrentContext(), info[0]);
    v8::Local<v8::Object> error;
    if (!self->logger_.tracking() &&
        asyncctx::MakeNodeError(isolate->GetCurrentContext(),
                                asyncctx::ErrorType::kTypeError,
                                "ERR_INVALID_ARG_TYPE",
                                "The \"store\" argument must be an instance of "
                                "AsyncLocalStorage or AsyncContext.Variable.")
            .ToLocal(&error)) {
      isolate->ThrowException(error);
    }
  }

  v8::Isolate* const isolate_;
  v8::Platform* const platform_;
  v8::Global<v8::Context> context_;
  Logger logger_;
  std::unordered_map<uint64_t, Operation> pending_;
  uint64_t next_operation_id_ = 1;
  CompletionQueue completions_;
  ThreadPool pool_;  // last: its threads are joined first
};

}  // namespace

int main(int argc, char* argv[]) {
  std::string source = kScript;
  if (argc > 1) {
    std::ifstream file(argv[1]);
    if (!file) {
      fprintf(stderr, "host_io: cannot read %s\n", argv[1]);
      return 2;
    }
    source.assign(std::istreambuf_iterator<char>(file), {});
  }

  // V8 and its platform: with Debian's V8 10.2 this is
  // v8::platform::NewDefaultPlatform(), V8::InitializePlatform() and
  // V8::Initialize() (tools/v8_host/v8_host_libnode.cc); inside a node binary
  // it is Node's platform (tools/v8_host/v8_host_node.cc).
  v8::Platform* platform = asyncctx::host::InitializeV8(argv[0]);
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  v8::Isolate* isolate = asyncctx::host::NewIsolate(params);
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);

  int exit_code = 0;
  {
    v8::Isolate::Scope isolate_scope(isolate);
    Host host(isolate, platform);

    asyncctx::RuntimeOptions options;
    options.platform = platform;
    // Runs in the frame that rejected the promise: the logger finds the
    // request that failed.
    options.on_unhandled_rejection = [&host](v8::Local<v8::Context> context,
                                             v8::Local<v8::Promise> promise,
                                             v8::Local<v8::Value> reason) {
      host.logger().Log(context, "unhandled rejection: " +
                                     ToUtf8(v8::Isolate::GetCurrent(), reason));
    };
    std::unique_ptr<asyncctx::Runtime> runtime =
        asyncctx::Runtime::Create(isolate, std::move(options));

    {
      v8::HandleScope handle_scope(isolate);
      v8::Local<v8::Context> context = v8::Context::New(isolate);
      v8::Context::Scope context_scope(context);
      v8::TryCatch try_catch(isolate);
      v8::Local<v8::Script> script;
      if (runtime->Install(context).IsNothing() || !host.Install(context) ||
          !v8::Script::Compile(context, ToV8(isolate, source))
               .ToLocal(&script) ||
          script->Run(context).IsEmpty()) {
        fprintf(stderr, "host_io: %s\n",
                ToUtf8(isolate, try_catch.Exception()).c_str());
        exit_code = 1;
      }
      runtime->RunMicrotasks(context);
    }
    if (exit_code == 0)
      host.Run(runtime.get());
    // Teardown: the host's resources and keys, then the runtime, then (after
    // this block) the isolate.
    host.Dispose();
    runtime.reset();
  }
  asyncctx::host::DisposeIsolate(isolate);
  asyncctx::host::ShutdownV8();
  return exit_code;
}
