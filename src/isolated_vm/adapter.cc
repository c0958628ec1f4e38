// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx inside isolated-vm (README.md beside this file).
//
// One shared object, loaded twice by the same process: `require()` of the
// wrapper (index.js) loads it as a Node addon, which only answers stats();
// `new ivm.NativeModule(path)` dlopens the same file again (same handle, same
// globals) and calls InitForContext() on an isolated-vm isolate's thread
// with the v8::Locker held. InitForContext() puts one function, `install`,
// on the object it is given; the wrapper calls it inside the context.
// installSync() saves two of those three isolated-vm calls: it stages the
// settings on Node's thread (stage()), and createSync(), which isolated-vm
// runs on the calling thread, finds them there and installs at once.
//
// Errors reach the caller's onError without an ivm.Callback: install()
// takes a handler token that acquire() made in Node's isolate; the context
// keeps it (a private External, released when the context is collected or
// its isolate disposed), and an error is posted as an isolated-vm task to
// Node's isolate, where the handler is called.
//
// Each isolated-vm isolate gets one asyncctx::Runtime, created by its first
// install and destroyed when isolated-vm disposes the isolate: isolated-vm
// runs the callbacks registered with IsolateEnvironment::AddWeakCallback
// under the isolate's lock, before Isolate::Dispose(). Those entry points
// are looked up by name in the loaded isolated-vm binary (it is opened with
// RTLD_LOCAL, so they cannot be linked against); their signatures are the
// ones its src/isolate/environment.h and holder.h declare.

#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "asyncctx/runtime.h"
#include "node.h"
#include "v8-context.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-json.h"
#include "v8-microtask-queue.h"
#include "v8-object.h"
#include "v8-platform.h"
#include "v8-primitive.h"

#define ASYNCCTX_IVM_EXPORT extern "C" __attribute__((visibility("default")))

namespace asyncctx {
namespace isolated_vm {
namespace {

// isolated-vm's own types, only ever handled through pointers.
struct IvmHolder;
struct IvmEnvironment;

// The isolated-vm 7.0 entry points the adapter calls (Itanium C++ ABI: a
// member function takes `this` first, after the hidden result pointer).
struct IvmApi {
  // static std::shared_ptr<IsolateHolder> IsolateHolder::GetCurrent()
  std::shared_ptr<IvmHolder> (*holder_get_current)() = nullptr;
  // std::shared_ptr<IsolateEnvironment> IsolateHolder::GetIsolate()
  std::shared_ptr<IvmEnvironment> (*holder_get_isolate)(IvmHolder*) = nullptr;
  // void IsolateHolder::ScheduleTask(std::unique_ptr<v8::Task>,
  //                                  bool run_inline, bool wake_isolate,
  //                                  bool handle_task)
  void (*holder_schedule_task)(IvmHolder*,
                               std::unique_ptr<v8::Task>,
                               bool,
                               bool,
                               bool) = nullptr;
  // void IsolateEnvironment::AddWeakCallback(v8::Persistent<v8::Value>*,
  //                                          void (*)(void*), void*)
  void (*env_add_weak_callback)(IvmEnvironment*,
                                void*,
                                void (*)(void*),
                                void*) = nullptr;
  // void IsolateEnvironment::RemoveWeakCallback(v8::Persistent<v8::Value>*)
  void (*env_remove_weak_callback)(IvmEnvironment*, void*) = nullptr;
};

constexpr char kGetCurrent[] = "_ZN3ivm13IsolateHolder10GetCurrentEv";
constexpr char kGetIsolate[] = "_ZN3ivm13IsolateHolder10GetIsolateEv";
constexpr char kScheduleTask[] =
    "_ZN3ivm13IsolateHolder12ScheduleTaskESt10unique_ptrIN2v84TaskESt14defaul"
    "t_deleteIS3_EEbbb";
constexpr char kAddWeakCallback[] =
    "_ZN3ivm18IsolateEnvironment15AddWeakCallbackEPN2v810PersistentINS1_5Valu"
    "eENS1_27NonCopyablePersistentTraitsIS3_EEEEPFvPvES8_";
constexpr char kRemoveWeakCallback[] =
    "_ZN3ivm18IsolateEnvironment18RemoveWeakCallbackEPN2v810PersistentINS1_5V"
    "alueENS1_27NonCopyablePersistentTraitsIS3_EEEE";

template <typename T>
bool Resolve(void* handle, const char* name, T* out) {
  void* symbol = dlsym(handle, name);
  *out = reinterpret_cast<T>(symbol);
  return symbol != nullptr;
}

int CollectObjectNames(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
    static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
  return 0;
}

// Finds isolated-vm's binary among the loaded objects: the one that defines
// all five entry points. Null if none does (yet: a miss is not remembered,
// so asking before isolated-vm is loaded changes nothing).
const IvmApi* FindIvmApi() {
  static absl::Mutex mutex;
  static const IvmApi* api ABSL_GUARDED_BY(mutex) = nullptr;
  absl::MutexLock lock(&mutex);
  if (api != nullptr)
    return api;
  std::vector<std::string> names;
  dl_iterate_phdr(CollectObjectNames, &names);
  for (const std::string& name : names) {
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr)
      continue;
    auto found = std::make_unique<IvmApi>();
    if (Resolve(handle, kGetCurrent, &found->holder_get_current) &&
        Resolve(handle, kGetIsolate, &found->holder_get_isolate) &&
        Resolve(handle, kScheduleTask, &found->holder_schedule_task) &&
        Resolve(handle, kAddWeakCallback, &found->env_add_weak_callback) &&
        Resolve(handle, kRemoveWeakCallback,
                &found->env_remove_weak_callback)) {
      // Kept, with the handle: isolated-vm is never unloaded before us.
      api = found.release();
      return api;
    }
    dlclose(handle);
  }
  return nullptr;
}

struct HandlerRef;

// One isolated-vm isolate's runtime.
struct IsolateRecord {
  v8::Isolate* isolate = nullptr;
  const IvmApi* api = nullptr;
  std::unique_ptr<Runtime> runtime;
  // Valid until the record is destroyed: the environment destroys it.
  IvmEnvironment* environment = nullptr;
  // For posting tasks; isolated-vm owns it.
  std::weak_ptr<IvmHolder> holder;
  // Its address is the record's key in isolated-vm's weak-callback map
  // (never dereferenced there).
  char weak_key = 0;
  // The error handlers of its installed contexts (each also weakly held by
  // its context). Only touched with the isolate locked.
  absl::flat_hash_map<HandlerRef*, std::unique_ptr<HandlerRef>> handler_refs;
};

absl::Mutex g_mutex;
absl::flat_hash_map<v8::Isolate*, std::unique_ptr<IsolateRecord>>* g_records
    ABSL_GUARDED_BY(g_mutex) = nullptr;
std::atomic<uint64_t> g_created{0};
std::atomic<uint64_t> g_destroyed{0};

IsolateRecord* FindRecord(v8::Isolate* isolate) {
  absl::MutexLock lock(&g_mutex);
  if (g_records == nullptr)
    return nullptr;
  auto it = g_records->find(isolate);
  return it == g_records->end() ? nullptr : it->second.get();
}

// Calls one of isolated-vm's entry points. They are C++ and report misuse
// with exceptions (std::logic_error); none may unwind through the adapter's
// frames or V8's. False, with `what` set, if it threw.
template <typename Fn>
bool CallIvm(Fn&& fn, std::string* what) {
  try {
    fn();
    return true;
  } catch (const std::exception& e) {
    *what = e.what();
  } catch (...) {
    *what = "unknown exception";
  }
  return false;
}

void ReleaseHandlerRefs(IsolateRecord* record);

// Runs on the isolate's thread with the isolate entered and locked, before
// Isolate::Dispose(). Only a record that g_records owns has a weak callback
// (RecordFor() registers it after inserting; only this erases), and `param`
// is only compared, never dereferenced, until it is found there.
void OnEnvironmentDisposed(void* param) {
  std::unique_ptr<IsolateRecord> owned;
  {
    absl::MutexLock lock(&g_mutex);
    if (g_records == nullptr)
      return;
    auto it = g_records->find(v8::Isolate::GetCurrent());
    if (it == g_records->end() || it->second.get() != param)
      return;
    owned = std::move(it->second);
    g_records->erase(it);
  }
  std::string what;
  if (!CallIvm(
          [&] {
            owned->api->env_remove_weak_callback(owned->environment,
                                                 &owned->weak_key);
          },
          &what)) {
    std::fprintf(stderr,
                 "asyncctx-isolated-vm: RemoveWeakCallback failed: %s\n",
                 what.c_str());
  }
  v8::HandleScope scope(owned->isolate);
  // The runtime first: nothing can report an error (and read a handler)
  // once it is gone.
  owned->runtime.reset();
  ReleaseHandlerRefs(owned.get());
  g_destroyed.fetch_add(1, std::memory_order_relaxed);
}

// A posted function as an isolated-vm task (ivm::Runnable is v8::Task).
class PostedTask final : public v8::Task {
 public:
  explicit PostedTask(std::function<void()> task) : task_(std::move(task)) {}
  void Run() override { task_(); }

 private:
  std::function<void()> task_;
};

// ---------------------------------------------------------------------------
// Errors back to Node's thread.

// The Node side of one Node environment (the addon's instance there): the
// onError handlers its installs acquired. `handlers` and `next_id` are only
// touched on Node's thread; `holder` and `api` are set by the first
// acquire(), before any handler of this sink can reach an isolate.
struct NodeSink {
  v8::Isolate* isolate = nullptr;
  v8::Global<v8::Context> context;
  const IvmApi* api = nullptr;
  // isolated-vm's holder of Node's isolate: tasks posted to it run on
  // Node's thread. Weak: isolated-vm owns it.
  std::weak_ptr<IvmHolder> holder;
  absl::flat_hash_map<uint64_t, v8::Global<v8::Function>> handlers;
  uint64_t next_id = 1;
  // Set by the environment's cleanup hook: posted work is dropped.
  std::atomic<bool> closed{false};
};

// Runs `task` on Node's thread, as an isolated-vm task of Node's isolate
// (in the order posted). False if the sink is closed or the task could not
// be posted.
bool PostToNode(const std::shared_ptr<NodeSink>& sink,
                std::function<void(NodeSink*)> task) {
  if (sink->closed.load(std::memory_order_acquire) || sink->api == nullptr)
    return false;
  std::shared_ptr<IvmHolder> holder = sink->holder.lock();
  if (holder == nullptr)
    return false;
  std::string what;
  if (!CallIvm(
          [&] {
            sink->api->holder_schedule_task(
                holder.get(),
                std::make_unique<PostedTask>([sink, task = std::move(task)] {
                  if (!sink->closed.load(std::memory_order_acquire))
                    task(sink.get());
                }),
                /*run_inline=*/false, /*wake_isolate=*/true,
                /*handle_task=*/false);
          },
          &what)) {
    std::fprintf(stderr,
                 "asyncctx-isolated-vm: ScheduleTask (Node) failed: %s\n",
                 what.c_str());
    return false;
  }
  return true;
}

// A handler acquire() made and no context has taken yet, by its token: an
// unguessable string, so that code inside an isolate that reaches an
// `install` function cannot take another install's handler.
struct Claim {
  std::shared_ptr<NodeSink> sink;
  uint64_t id = 0;
};
absl::flat_hash_map<std::string, Claim>* g_claims ABSL_GUARDED_BY(g_mutex) =
    nullptr;

// Moves the claim for `token` out of the table; false if there is none.
bool TakeClaim(const std::string& token, Claim* out) {
  absl::MutexLock lock(&g_mutex);
  if (g_claims == nullptr)
    return false;
  auto it = g_claims->find(token);
  if (it == g_claims->end())
    return false;
  *out = std::move(it->second);
  g_claims->erase(it);
  return true;
}

// One installed context's handler: the context holds `external` (as a
// private value of its global), which holds this; freed when the External
// is collected or the isolate disposed, releasing the Node-side function.
struct HandlerRef {
  std::shared_ptr<NodeSink> sink;
  uint64_t id = 0;
  v8::Global<v8::External> external;
  IsolateRecord* record = nullptr;
};

void ReleaseOnNode(std::unique_ptr<HandlerRef> ref) {
  uint64_t id = ref->id;
  PostToNode(ref->sink, [id](NodeSink* sink) { sink->handlers.erase(id); });
}

void ReleaseHandlerRefs(IsolateRecord* record) {
  auto refs = std::move(record->handler_refs);
  for (auto& [raw, ref] : refs) {
    ref->external.Reset();
    ReleaseOnNode(std::move(ref));
  }
}

// First-pass weak callback: only Reset and bookkeeping, no V8 calls.
void OnHandlerRefCollected(const v8::WeakCallbackInfo<HandlerRef>& info) {
  HandlerRef* raw = info.GetParameter();
  raw->external.Reset();
  auto it = raw->record->handler_refs.find(raw);
  if (it == raw->record->handler_refs.end())
    return;
  std::unique_ptr<HandlerRef> ref = std::move(it->second);
  raw->record->handler_refs.erase(it);
  ReleaseOnNode(std::move(ref));
}

// On Node's thread: calls handler `id` with (kind, hook, message, stack),
// as a Node callback (an exception it throws is Node's uncaught exception).
void DeliverError(NodeSink* sink,
                  uint64_t id,
                  const std::string& kind,
                  const std::string& hook,
                  const std::string& message,
                  const std::string& stack) {
  v8::Isolate* isolate = sink->isolate;
  auto it = sink->handlers.find(id);
  if (it == sink->handlers.end() || sink->context.IsEmpty()) {
    std::fprintf(stderr, "asyncctx-isolated-vm: %s: %s\n", kind.c_str(),
                 stack.empty() ? message.c_str() : stack.c_str());
    return;
  }
  v8::HandleScope scope(isolate);
  v8::Local<v8::Context> context = sink->context.Get(isolate);
  v8::Context::Scope context_scope(context);
  auto str = [&](const std::string& s) -> v8::Local<v8::Value> {
    v8::Local<v8::String> out;
    if (!v8::String::NewFromUtf8(isolate, s.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(s.size()))
             .ToLocal(&out)) {
      return v8::Undefined(isolate);
    }
    return out;
  };
  v8::Local<v8::Value> argv[] = {str(kind), str(hook), str(message),
                                 str(stack)};
  v8::Local<v8::Function> handler = it->second.Get(isolate);
  // Its result is not used; a throw is reported by Node itself.
  (void)node::MakeCallback(isolate, context->Global(), handler, 4, argv,
                           node::async_context{0, 0});
}

v8::Local<v8::String> Str(v8::Isolate* isolate, const char* s) {
  return v8::String::NewFromUtf8(isolate, s, v8::NewStringType::kInternalized)
      .ToLocalChecked();
}

std::string ToStd(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 == nullptr ? std::string("<unprintable>")
                          : std::string(*utf8, utf8.length());
}

v8::Local<v8::Private> ErrorHandlerKey(v8::Isolate* isolate) {
  return v8::Private::ForApi(isolate,
                             Str(isolate, "asyncctx-isolated-vm:onError"));
}

// Posts (kind, hook, message, stack) to the context's error handler on
// Node's thread; prints to stderr if the context has none or Node's side is
// gone.
void ReportError(v8::Isolate* isolate,
                 v8::Local<v8::Context> context,
                 const char* kind,
                 const std::string& hook,
                 const std::string& message,
                 const std::string& stack) {
  if (isolate->IsExecutionTerminating())
    return;
  v8::HandleScope scope(isolate);
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::Value> value;
  if (context->Global()
          ->GetPrivate(context, ErrorHandlerKey(isolate))
          .ToLocal(&value) &&
      value->IsExternal()) {
    auto* ref = static_cast<HandlerRef*>(value.As<v8::External>()->Value());
    uint64_t id = ref->id;
    if (PostToNode(ref->sink, [id, kind = std::string(kind), hook, message,
                               stack](NodeSink* sink) {
          DeliverError(sink, id, kind, hook, message, stack);
        })) {
      return;
    }
  }
  std::fprintf(stderr, "asyncctx-isolated-vm: %s: %s\n", kind,
               stack.empty() ? message.c_str() : stack.c_str());
  std::fflush(stderr);
}

std::string StackOf(v8::Isolate* isolate,
                    v8::Local<v8::Context> context,
                    v8::Local<v8::Value> error) {
  if (!error->IsObject())
    return {};
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::Value> stack;
  if (error.As<v8::Object>()
          ->Get(context, Str(isolate, "stack"))
          .ToLocal(&stack) &&
      stack->IsString()) {
    return ToStd(isolate, stack);
  }
  return {};
}

void ThrowIvmError(v8::Isolate* isolate,
                   const char* call,
                   const std::string& what) {
  isolate->ThrowError(
      v8::String::NewFromUtf8(
          isolate, absl::StrCat("asyncctx-isolated-vm: isolated-vm's ", call,
                                " failed: ", what)
                       .c_str())
          .ToLocalChecked());
}

// The isolate's record, created (with its runtime) on first use. Null with
// an exception thrown if `context` is Node's (an isolate isolated-vm does not
// own never reports its disposal, so its runtime would never be destroyed),
// isolated-vm's entry points are missing or fail, or the runtime cannot be
// created.
IsolateRecord* RecordFor(v8::Isolate* isolate, v8::Local<v8::Context> context) {
  if (node::GetCurrentEnvironment(context) != nullptr) {
    isolate->ThrowError(
        "asyncctx-isolated-vm: install() cannot run in a Node.js context, "
        "only in an isolated-vm isolate's");
    return nullptr;
  }
  if (IsolateRecord* record = FindRecord(isolate))
    return record;
  const IvmApi* api = FindIvmApi();
  if (api == nullptr) {
    isolate->ThrowError(
        "asyncctx-isolated-vm: isolated-vm's IsolateEnvironment entry points "
        "were not found in the process (this build supports isolated-vm "
        "7.0.x)");
    return nullptr;
  }
  std::shared_ptr<IvmHolder> holder;
  std::shared_ptr<IvmEnvironment> environment;
  std::string what;
  if (!CallIvm(
          [&] {
            holder = api->holder_get_current();
            if (holder != nullptr)
              environment = api->holder_get_isolate(holder.get());
          },
          &what)) {
    ThrowIvmError(isolate, "IsolateHolder::GetCurrent()", what);
    return nullptr;
  }
  if (environment == nullptr) {
    isolate->ThrowError(
        "asyncctx-isolated-vm: install() must run inside an isolated-vm "
        "isolate");
    return nullptr;
  }

  auto record = std::make_unique<IsolateRecord>();
  IsolateRecord* raw = record.get();
  raw->isolate = isolate;
  raw->api = api;
  raw->environment = environment.get();
  raw->holder = holder;

  RuntimeOptions options;
  // isolated-vm checkpoints microtasks itself (policy kAuto).
  options.host_checkpoints = true;
  options.post_task = [raw](std::function<void()> task) {
    std::shared_ptr<IvmHolder> holder = raw->holder.lock();
    if (holder == nullptr)
      return;
    std::string what;
    if (!CallIvm(
            [&] {
              raw->api->holder_schedule_task(
                  holder.get(), std::make_unique<PostedTask>(std::move(task)),
                  /*run_inline=*/false, /*wake_isolate=*/true,
                  /*handle_task=*/false);
            },
            &what)) {
      std::fprintf(stderr, "asyncctx-isolated-vm: ScheduleTask failed: %s\n",
                   what.c_str());
    }
  };
  options.on_uncaught_exception = [](v8::Local<v8::Context> context,
                                     v8::Local<v8::Value> exception,
                                     v8::Local<v8::Message>) {
    v8::Isolate* isolate = v8::Isolate::GetCurrent();
    ReportError(isolate, context, "uncaughtException", "",
                ToStd(isolate, exception),
                StackOf(isolate, context, exception));
  };
  options.on_hook_error = [](v8::Isolate* isolate, const HookError& error) {
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    if (context.IsEmpty()) {
      std::fprintf(stderr, "asyncctx-isolated-vm: hook '%s': %s\n",
                   error.hook_name.c_str(), error.message.c_str());
      return;
    }
    ReportError(isolate, context, "hookError", error.hook_name, error.message,
                error.stack);
  };
  absl::StatusOr<std::unique_ptr<Runtime>> runtime =
      Runtime::New(isolate, std::move(options));
  if (!runtime.ok()) {
    isolate->ThrowError(
        v8::String::NewFromUtf8(isolate,
                                std::string(runtime.status().message()).c_str())
            .ToLocalChecked());
    return nullptr;
  }
  raw->runtime = std::move(runtime).value();
  // A record that cannot be registered is destroyed here, with its runtime.
  auto discard = [&](std::unique_ptr<IsolateRecord> unused) {
    v8::HandleScope scope(isolate);
    unused->runtime.reset();
  };
  bool inserted;
  {
    absl::MutexLock lock(&g_mutex);
    if (g_records == nullptr) {
      g_records = new absl::flat_hash_map<v8::Isolate*,
                                          std::unique_ptr<IsolateRecord>>();
    }
    // try_emplace leaves `record` alone if the key exists.
    inserted = g_records->try_emplace(isolate, std::move(record)).second;
  }
  if (!inserted) {
    // Another runtime already owns this isolate (its weak callback is
    // registered): keep it, and refuse this one.
    discard(std::move(record));
    isolate->ThrowError(
        "asyncctx-isolated-vm: this isolate already has an asyncctx runtime "
        "that install() did not find");
    return nullptr;
  }
  // Registered after the insert: OnEnvironmentDisposed() only ever finds
  // records that g_records owns.
  if (!CallIvm(
          [&] {
            api->env_add_weak_callback(raw->environment, &raw->weak_key,
                                       OnEnvironmentDisposed, raw);
          },
          &what)) {
    {
      absl::MutexLock lock(&g_mutex);
      auto it = g_records->find(isolate);
      record = std::move(it->second);
      g_records->erase(it);
    }
    discard(std::move(record));
    ThrowIvmError(isolate, "IsolateEnvironment::AddWeakCallback()", what);
    return nullptr;
  }
  g_created.fetch_add(1, std::memory_order_relaxed);
  return raw;
}

bool ReadName(v8::Isolate* isolate,
              v8::Local<v8::Context> context,
              v8::Local<v8::Object> names,
              const char* key,
              std::string* out) {
  // Own properties only: code that ran in the context before install()
  // may have put any name on Object.prototype.
  v8::Local<v8::String> name = Str(isolate, key);
  bool own;
  if (!names->HasOwnProperty(context, name).To(&own))
    return false;
  if (!own)
    return true;
  v8::Local<v8::Value> value;
  if (!names->Get(context, name).ToLocal(&value))
    return false;
  if (value->IsUndefined())
    return true;
  if (!value->IsString()) {
    isolate->ThrowError(
        v8::String::NewFromUtf8(isolate, absl::StrCat("asyncctx-isolated-vm: "
                                                      "names.",
                                                      key, " must be a string")
                                             .c_str())
            .ToLocalChecked());
    return false;
  }
  *out = ToStd(isolate, value);
  return true;
}

// Gives the installed context the handler of `token` (if it is still
// unclaimed): false only with an exception thrown.
bool AttachHandler(v8::Isolate* isolate,
                   v8::Local<v8::Context> context,
                   IsolateRecord* record,
                   const std::string& token) {
  Claim claim;
  if (!TakeClaim(token, &claim))
    return true;
  auto ref = std::make_unique<HandlerRef>();
  HandlerRef* raw = ref.get();
  raw->sink = std::move(claim.sink);
  raw->id = claim.id;
  raw->record = record;
  v8::Local<v8::External> external = v8::External::New(isolate, raw);
  if (context->Global()
          ->SetPrivate(context, ErrorHandlerKey(isolate), external)
          .IsNothing()) {
    ReleaseOnNode(std::move(ref));
    return false;
  }
  raw->external.Reset(isolate, external);
  raw->external.SetWeak(raw, OnHandlerRefCollected,
                        v8::WeakCallbackType::kParameter);
  record->handler_refs.emplace(raw, std::move(ref));
  return true;
}

// Installs into `context` (entered): `settings` is the JSON text
// {names..., codeCache} or not a string (defaults); `token` names the
// handler acquire() made ('' for none). False with an exception thrown.
bool DoInstall(v8::Isolate* isolate,
               v8::Local<v8::Context> context,
               v8::Local<v8::Value> settings,
               const std::string& token) {
  InstallOptions install;
  // isolated-vm makes no snapshots: the layer's code cache is safe here.
  install.code_cache = true;
  if (settings->IsString()) {
    v8::Local<v8::Value> parsed;
    if (!v8::JSON::Parse(context, settings.As<v8::String>()).ToLocal(&parsed))
      return false;
    if (!parsed->IsObject()) {
      isolate->ThrowError("asyncctx-isolated-vm: names must be an object");
      return false;
    }
    auto names = parsed.As<v8::Object>();
    if (!ReadName(isolate, context, names, "AsyncLocalStorage",
                  &install.async_local_storage) ||
        !ReadName(isolate, context, names, "AsyncResource",
                  &install.async_resource) ||
        !ReadName(isolate, context, names, "queueMicrotask",
                  &install.queue_microtask) ||
        !ReadName(isolate, context, names, "AsyncContext",
                  &install.async_context) ||
        !ReadName(isolate, context, names, "asyncHooks",
                  &install.async_hooks) ||
        !ReadName(isolate, context, names, "diagnosticsChannel",
                  &install.diagnostics_channel)) {
      return false;
    }
    // An own property only, as the names: code that ran in the context may
    // have put a getter on Object.prototype.
    v8::Local<v8::String> key = Str(isolate, "codeCache");
    bool own;
    v8::Local<v8::Value> code_cache;
    if (!names->HasOwnProperty(context, key).To(&own))
      return false;
    if (own && !names->Get(context, key).ToLocal(&code_cache))
      return false;
    if (own && code_cache->IsBoolean())
      install.code_cache = code_cache->IsTrue();
  }
  IsolateRecord* record = RecordFor(isolate, context);
  if (record == nullptr)
    return false;
  if (record->runtime->Install(context, install).IsNothing())
    return false;
  // Only now: a failed or repeated install leaves the handler as it was.
  return token.empty() || AttachHandler(isolate, context, record, token);
}

// install(settingsJson, token): inside the context to install into.
void InstallCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  std::string token;
  if (info.Length() > 1 && info[1]->IsString())
    token = ToStd(isolate, info[1]);
  if (DoInstall(
          isolate, context,
          info.Length() > 0 ? info[0] : v8::Undefined(isolate).As<v8::Value>(),
          token)) {
    info.GetReturnValue().Set(true);
  }
}

// What installSync() staged on Node's thread for the createSync() it is
// about to make; InitForContext() on the same thread takes it. installSync()
// calls createSync() right after stage() and unstage() in a `finally`; only
// a termination of Node's own JavaScript in between can leave it staged,
// and then only a createSync() of another NativeModule of this binary on
// the same thread (never the wrapper's: it stages again first) would take
// it. The next stage() drops a leftover's handler.
struct Staged {
  bool pending = false;
  std::string settings;
  std::string token;
  // 0: not taken; 1: installed; -1: the install threw.
  int result = 0;
};
thread_local Staged t_staged;
// Installs done inside createSync() (stats().stagedInstalls).
std::atomic<uint64_t> g_staged_installs{0};

}  // namespace
}  // namespace isolated_vm
}  // namespace asyncctx

// isolated-vm's native-module entry point (new ivm.NativeModule(path)).
ASYNCCTX_IVM_EXPORT void InitForContext(v8::Isolate* isolate,
                                        v8::Local<v8::Context> context,
                                        v8::Local<v8::Object> target) {
  using asyncctx::isolated_vm::InstallCallback;
  using asyncctx::isolated_vm::Str;
  using asyncctx::isolated_vm::t_staged;
  if (t_staged.pending) {
    // installSync()'s createSync(), run by isolated-vm on Node's thread:
    // install now. Taken first, so that nothing this runs can take it again.
    t_staged.pending = false;
    std::string settings = std::move(t_staged.settings);
    std::string token = std::move(t_staged.token);
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::String> text;
    bool installed =
        v8::String::NewFromUtf8(isolate, settings.data(),
                                v8::NewStringType::kNormal,
                                static_cast<int>(settings.size()))
            .ToLocal(&text) &&
        asyncctx::isolated_vm::DoInstall(isolate, context, text, token);
    // On failure the wrapper calls install() to get isolated-vm's copy of
    // the error: a failed install changed nothing, so it fails the same way.
    t_staged.result = installed ? 1 : -1;
    if (installed) {
      asyncctx::isolated_vm::g_staged_installs.fetch_add(
          1, std::memory_order_relaxed);
      return;
    }
  }
  v8::Local<v8::Function> install;
  if (!v8::Function::New(context, InstallCallback).ToLocal(&install))
    return;
  target->Set(context, Str(isolate, "install"), install).Check();
}

namespace asyncctx {
namespace isolated_vm {
namespace {

NodeSink* SinkOf(const v8::FunctionCallbackInfo<v8::Value>& info) {
  return static_cast<std::shared_ptr<NodeSink>*>(
             info.Data().As<v8::External>()->Value())
      ->get();
}

std::shared_ptr<NodeSink> SharedSinkOf(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  return *static_cast<std::shared_ptr<NodeSink>*>(
      info.Data().As<v8::External>()->Value());
}

std::string RandomToken() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n <= 0) {
      std::fprintf(stderr, "asyncctx-isolated-vm: fatal: getrandom failed\n");
      std::abort();
    }
    got += static_cast<size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes)
    absl::StrAppend(&out, absl::Hex(b, absl::kZeroPad2));
  return out;
}

// acquire(fn) -> token: keeps fn as an error handler until a context that
// took the token is gone, or release(token). Only after isolated-vm is
// loaded in this Node environment (index.js requires it first):
// IsolateHolder::GetCurrent() dereferences isolated-vm's per-thread
// executor, which exists only then.
void AcquireCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (info.Length() < 1 || !info[0]->IsFunction()) {
    isolate->ThrowError("asyncctx-isolated-vm: acquire() takes a function");
    return;
  }
  std::shared_ptr<NodeSink> sink = SharedSinkOf(info);
  if (sink->api == nullptr) {
    const IvmApi* api = FindIvmApi();
    std::shared_ptr<IvmHolder> holder;
    std::string what;
    if (api == nullptr ||
        !CallIvm([&] { holder = api->holder_get_current(); }, &what) ||
        holder == nullptr) {
      isolate->ThrowError(
          "asyncctx-isolated-vm: isolated-vm is not loaded in this Node.js "
          "environment");
      return;
    }
    sink->holder = holder;
    sink->api = api;
  }
  uint64_t id = sink->next_id++;
  sink->handlers.emplace(
      id, v8::Global<v8::Function>(isolate, info[0].As<v8::Function>()));
  std::string token = RandomToken();
  {
    absl::MutexLock lock(&g_mutex);
    if (g_claims == nullptr)
      g_claims = new absl::flat_hash_map<std::string, Claim>();
    (*g_claims)[token] = Claim{sink, id};
  }
  info.GetReturnValue().Set(
      v8::String::NewFromUtf8(isolate, token.c_str()).ToLocalChecked());
}

// release(token): drops a handler no context took (a failed install).
void ReleaseCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (info.Length() < 1 || !info[0]->IsString())
    return;
  Claim claim;
  if (!TakeClaim(ToStd(isolate, info[0]), &claim))
    return;
  uint64_t id = claim.id;
  if (claim.sink.get() == SinkOf(info))
    claim.sink->handlers.erase(id);
  else  // Another environment's token: freed on its thread.
    PostToNode(claim.sink, [id](NodeSink* sink) { sink->handlers.erase(id); });
}

// stage(settingsJson, token): for the createSync() that follows.
void StageCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (info.Length() < 2 || !info[0]->IsString() || !info[1]->IsString()) {
    isolate->ThrowError("asyncctx-isolated-vm: stage() takes two strings");
    return;
  }
  if (t_staged.pending) {
    // An installSync() cut off before its createSync() (see Staged).
    Claim leftover;
    if (TakeClaim(t_staged.token, &leftover))
      leftover.sink->handlers.erase(leftover.id);
  }
  t_staged.pending = true;
  t_staged.settings = ToStd(isolate, info[0]);
  t_staged.token = ToStd(isolate, info[1]);
  t_staged.result = 0;
}

// unstage() -> 1 (createSync() installed), 0 (it did not run the staged
// install here), -1 (the install threw).
void UnstageCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  int result = t_staged.result;
  t_staged = Staged();
  info.GetReturnValue().Set(result);
}

// stats() in Node's isolate: {live, created, destroyed} runtimes, and
// `handlers`: this environment's error handlers still held.
void StatsCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  size_t live = 0;
  {
    absl::MutexLock lock(&g_mutex);
    if (g_records != nullptr)
      live = g_records->size();
  }
  v8::Local<v8::Object> stats = v8::Object::New(isolate);
  auto set = [&](const char* key, double value) {
    stats->Set(context, Str(isolate, key), v8::Number::New(isolate, value))
        .Check();
  };
  set("live", static_cast<double>(live));
  set("created", static_cast<double>(g_created.load()));
  set("destroyed", static_cast<double>(g_destroyed.load()));
  set("handlers", static_cast<double>(SinkOf(info)->handlers.size()));
  set("stagedInstalls", static_cast<double>(g_staged_installs.load()));
  set("isolatedVmFound", FindIvmApi() != nullptr ? 1 : 0);
  info.GetReturnValue().Set(stats);
}

// The environment is going away: its handlers are freed while its isolate
// is alive, and work posted for it from then on is dropped.
void OnNodeEnvironmentCleanup(void* arg) {
  auto* holder = static_cast<std::shared_ptr<NodeSink>*>(arg);
  NodeSink* sink = holder->get();
  sink->closed.store(true, std::memory_order_release);
  {
    // Tokens no context took (an install cut off by the environment's end).
    absl::MutexLock lock(&g_mutex);
    if (g_claims != nullptr) {
      absl::erase_if(*g_claims, [sink](const auto& entry) {
        return entry.second.sink.get() == sink;
      });
    }
  }
  sink->handlers.clear();
  sink->context.Reset();
  delete holder;
}

}  // namespace
}  // namespace isolated_vm
}  // namespace asyncctx

// The Node addon side (require()): the handlers, the staged install and
// statistics; nothing is installed into Node's own isolate. Found by Node
// through its well-known name (node_register_module_v<ABI>), with no
// NODE_MODULE* registration: that one runs from a static constructor at
// dlopen, and when isolated-vm's NativeModule opens the file first, it
// leaves Node's pending-module slot set, and Node's next addon load aborts.
extern "C" NODE_MODULE_EXPORT void NODE_MODULE_INITIALIZER(
    v8::Local<v8::Object> exports,
    v8::Local<v8::Value> module,
    v8::Local<v8::Context> context);
extern "C" NODE_MODULE_EXPORT void NODE_MODULE_INITIALIZER(
    v8::Local<v8::Object> exports,
    v8::Local<v8::Value>,
    v8::Local<v8::Context> context) {
  using namespace asyncctx::isolated_vm;  // NOLINT(build/namespaces)
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  auto* sink = new std::shared_ptr<NodeSink>(std::make_shared<NodeSink>());
  (*sink)->isolate = isolate;
  (*sink)->context.Reset(isolate, context);
  node::AddEnvironmentCleanupHook(isolate, OnNodeEnvironmentCleanup, sink);
  v8::Local<v8::External> data = v8::External::New(isolate, sink);
  struct Entry {
    const char* name;
    v8::FunctionCallback callback;
  };
  for (const Entry& entry :
       {Entry{"acquire", AcquireCallback}, Entry{"release", ReleaseCallback},
        Entry{"stage", StageCallback}, Entry{"unstage", UnstageCallback},
        Entry{"stats", StatsCallback}}) {
    v8::Local<v8::Function> fn;
    if (!v8::Function::New(context, entry.callback, data).ToLocal(&fn))
      return;
    exports->Set(context, Str(isolate, entry.name), fn).Check();
  }
}
