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
  owned->runtime.reset();
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

// Calls the context's error handler (an ivm.Callback the wrapper passed to
// install) with (kind, hook, message, stack); prints to stderr if there is
// none or it cannot be called.
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
  v8::Local<v8::Value> handler;
  if (context->Global()
          ->GetPrivate(context, ErrorHandlerKey(isolate))
          .ToLocal(&handler) &&
      handler->IsFunction()) {
    v8::Local<v8::Value> argv[] = {
        Str(isolate, kind),
        v8::String::NewFromUtf8(isolate, hook.c_str()).ToLocalChecked(),
        v8::String::NewFromUtf8(isolate, message.c_str()).ToLocalChecked(),
        v8::String::NewFromUtf8(isolate, stack.c_str()).ToLocalChecked(),
    };
    if (!handler.As<v8::Function>()
             ->Call(context, v8::Undefined(isolate), 4, argv)
             .IsEmpty()) {
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

// install(settingsJson, onError): inside the context to install into;
// settingsJson is {names..., codeCache}.
void InstallCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  InstallOptions install;
  // isolated-vm makes no snapshots: the layer's code cache is safe here.
  install.code_cache = true;
  if (info.Length() > 0 && info[0]->IsString()) {
    v8::Local<v8::Value> parsed;
    if (!v8::JSON::Parse(context, info[0].As<v8::String>()).ToLocal(&parsed))
      return;
    if (!parsed->IsObject()) {
      isolate->ThrowError("asyncctx-isolated-vm: names must be an object");
      return;
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
      return;
    }
    v8::Local<v8::Value> code_cache;
    if (!names->Get(context, Str(isolate, "codeCache")).ToLocal(&code_cache))
      return;
    if (code_cache->IsBoolean())
      install.code_cache = code_cache->IsTrue();
  }
  IsolateRecord* record = RecordFor(isolate, context);
  if (record == nullptr)
    return;
  if (record->runtime->Install(context, install).IsNothing())
    return;
  // Only now: a failed or repeated install leaves the handler as it was.
  if (info.Length() > 1 && info[1]->IsFunction()) {
    if (context->Global()
            ->SetPrivate(context, ErrorHandlerKey(isolate), info[1])
            .IsNothing()) {
      return;
    }
  }
  info.GetReturnValue().Set(true);
}

}  // namespace
}  // namespace isolated_vm
}  // namespace asyncctx

// isolated-vm's native-module entry point (new ivm.NativeModule(path)).
ASYNCCTX_IVM_EXPORT void InitForContext(v8::Isolate* isolate,
                                        v8::Local<v8::Context> context,
                                        v8::Local<v8::Object> target) {
  using asyncctx::isolated_vm::InstallCallback;
  using asyncctx::isolated_vm::Str;
  v8::Local<v8::Function> install;
  if (!v8::Function::New(context, InstallCallback).ToLocal(&install))
    return;
  target->Set(context, Str(isolate, "install"), install).Check();
}

namespace {

// stats() in Node's isolate: {live, created, destroyed} runtimes.
void StatsCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  using asyncctx::isolated_vm::Str;
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  size_t live = 0;
  {
    absl::MutexLock lock(&asyncctx::isolated_vm::g_mutex);
    if (asyncctx::isolated_vm::g_records != nullptr)
      live = asyncctx::isolated_vm::g_records->size();
  }
  v8::Local<v8::Object> stats = v8::Object::New(isolate);
  auto set = [&](const char* key, double value) {
    stats->Set(context, Str(isolate, key), v8::Number::New(isolate, value))
        .Check();
  };
  set("live", static_cast<double>(live));
  set("created", static_cast<double>(asyncctx::isolated_vm::g_created.load()));
  set("destroyed",
      static_cast<double>(asyncctx::isolated_vm::g_destroyed.load()));
  set("isolatedVmFound",
      asyncctx::isolated_vm::FindIvmApi() != nullptr ? 1 : 0);
  info.GetReturnValue().Set(stats);
}

}  // namespace

// The Node addon side (require()): statistics only; nothing is installed
// into Node's own isolate.
NODE_MODULE_INIT(/* exports, module, context */) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::Local<v8::Function> stats;
  if (!v8::Function::New(context, StatsCallback).ToLocal(&stats))
    return;
  exports->Set(context, asyncctx::isolated_vm::Str(isolate, "stats"), stats)
      .Check();
}
