// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/modules.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "asyncctx/errors.h"
#include "asyncctx/module.h"
#include "tools/shell/bindings.h"
#include "tools/shell/error_reporter.h"
#include "tools/shell/errors.h"
#include "tools/shell/script.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {
namespace {

// The isolate data slot that points to the loader (asyncctx uses
// RuntimeOptions::isolate_data_slot, by default asyncctx::kIsolateDataSlot).
constexpr uint32_t kLoaderSlot = 0;

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// `dir` joined with `relative`, with `.` and `..` folded lexically, as a URL
// resolver does ("a/b" + "../c.mjs" is "a/c.mjs").
std::string JoinPath(const std::string& dir, const std::string& relative) {
  std::string joined = absl::StartsWith(relative, "/")
                           ? relative
                           : absl::StrCat(dir, "/", relative);
  bool absolute = absl::StartsWith(joined, "/");
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(joined, '/')) {
    if (part.empty() || part == ".")
      continue;
    if (part == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
    } else if (part != ".." || !absolute) {
      parts.emplace_back(part);
    }
  }
  std::string result = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); i++)
    absl::StrAppend(&result, i == 0 ? "" : "/", parts[i]);
  return result.empty() ? "." : result;
}

std::string AbsolutePath(const std::string& path) {
  if (absl::StartsWith(path, "/"))
    return JoinPath("/", path);
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr)
    return path;
  return JoinPath(cwd, path);
}

// The real path of an existing file, or empty.
std::string RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer) == nullptr)
    return std::string();
  return buffer;
}

std::string FileUrl(const std::string& absolute_path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string url = "file://";
  for (unsigned char c : absolute_path) {
    if (isalnum(c) || strchr("/-._~!$&'()*+,;=:@", c) != nullptr) {
      url.push_back(static_cast<char>(c));
    } else {
      url.push_back('%');
      url.push_back(kHex[c >> 4]);
      url.push_back(kHex[c & 15]);
    }
  }
  return url;
}

std::string PathFromFileUrl(const std::string& url) {
  std::string path;
  for (size_t i = strlen("file://"); i < url.size(); i++) {
    if (url[i] == '%' && i + 2 < url.size() && isxdigit(url[i + 1]) &&
        isxdigit(url[i + 2])) {
      path.push_back(
          static_cast<char>(std::stoi(url.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      path.push_back(url[i]);
    }
  }
  return path;
}

// Node's module error `code`; `location` ("file:line:column"), when known,
// becomes the stack's one frame so that the report names the import.
v8::Local<v8::Value> ModuleError(v8::Local<v8::Context> context,
                                 const char* code,
                                 const std::string& message,
                                 const std::string& location) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Object> error;
  if (!MakeNodeError(context, ErrorType::kError, code, message.c_str())
           .ToLocal(&error)) {
    return v8::Undefined(isolate);
  }
  std::string stack = absl::StrCat("Error [", code, "]: ", message);
  if (!location.empty())
    absl::StrAppend(&stack, "\n    at ", location);
  (void)error
      ->Set(context, ToV8String(isolate, "stack"), ToV8String(isolate, stack))
      .IsNothing();
  return error;
}

void OnMainRejected(const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* reporter =
      static_cast<ErrorReporter*>(info.Data().As<v8::External>()->Value());
  v8::Isolate* isolate = info.GetIsolate();
  reporter->ReportException(isolate->GetCurrentContext(), info[0],
                            v8::Exception::CreateMessage(isolate, info[0]));
}

// import() settles with the namespace once evaluation has (data: [resolver,
// namespace]), or rejects with its error (data: resolver).
void OnImportEvaluated(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Local<v8::Context> context = info.GetIsolate()->GetCurrentContext();
  v8::Local<v8::Array> data = info.Data().As<v8::Array>();
  v8::Local<v8::Value> resolver;
  v8::Local<v8::Value> name_space;
  if (data->Get(context, 0).ToLocal(&resolver) &&
      data->Get(context, 1).ToLocal(&name_space)) {
    (void)resolver.As<v8::Promise::Resolver>()
        ->Resolve(context, name_space)
        .IsNothing();
  }
}

void OnImportFailed(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Local<v8::Context> context = info.GetIsolate()->GetCurrentContext();
  (void)info.Data()
      .As<v8::Promise::Resolver>()
      ->Reject(context, info[0])
      .IsNothing();
}

}  // namespace

ModuleLoader::ModuleLoader(v8::Isolate* isolate, ErrorReporter* reporter)
    : isolate_(isolate), reporter_(reporter) {
  isolate->SetData(kLoaderSlot, this);
  isolate->SetHostImportModuleDynamicallyCallback(ImportDynamic);
  isolate->SetHostInitializeImportMetaObjectCallback(InitializeImportMeta);
}

ModuleLoader::~ModuleLoader() {
  isolate_->SetData(kLoaderSlot, nullptr);
}

ModuleLoader* ModuleLoader::From(v8::Isolate* isolate) {
  return static_cast<ModuleLoader*>(isolate->GetData(kLoaderSlot));
}

ModuleLoader::Entry* ModuleLoader::Find(v8::Local<v8::Module> module) const {
  auto it = by_hash_.find(module->GetIdentityHash());
  if (it == by_hash_.end())
    return nullptr;
  for (Entry* entry : it->second) {
    if (entry->module.Get(isolate_) == module)
      return entry;
  }
  return nullptr;
}

ModuleLoader::Entry* ModuleLoader::Compile(v8::Local<v8::Context> context,
                                           const std::string& name,
                                           const std::string& real_path,
                                           const std::string& source,
                                           Failure* failure) {
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::String> code;
  if (source.size() > static_cast<size_t>(v8::String::kMaxLength) ||
      !v8::String::NewFromUtf8(isolate_, source.data(),
                               v8::NewStringType::kNormal,
                               static_cast<int>(source.size()))
           .ToLocal(&code)) {
    failure->exception =
        v8::Exception::Error(ToV8String(isolate_, "Module too large: " + name));
    return nullptr;
  }
  v8::ScriptOrigin origin =
      host_compat::MakeModuleOrigin(isolate_, ToV8String(isolate_, name));
  v8::ScriptCompiler::Source compiler_source(code, origin);
  v8::Local<v8::Module> module;
  if (!v8::ScriptCompiler::CompileModule(isolate_, &compiler_source)
           .ToLocal(&module)) {
    failure->exception = try_catch.Exception();
    failure->message = try_catch.Message();
    return nullptr;
  }
  auto owned = std::make_unique<Entry>();
  Entry* entry = owned.get();
  entry->name = name;
  entry->real_path = real_path;
  entry->module.Reset(isolate_, module);
  by_hash_[module->GetIdentityHash()].push_back(entry);
  by_path_[real_path] = std::move(owned);
  return entry;
}

bool ModuleLoader::Resolve(v8::Local<v8::Context> context,
                           const std::string& specifier,
                           const std::string& referrer_name,
                           const std::string& location,
                           Entry** entry,
                           Failure* failure) {
  *entry = nullptr;
  if (IsBuiltinModuleSpecifier(specifier))
    return true;
  std::string from = referrer_name.empty() ? std::string("the shell")
                                           : AbsolutePath(referrer_name);
  if (absl::StartsWith(specifier, "node:")) {
    failure->exception =
        ModuleError(context, "ERR_UNKNOWN_BUILTIN_MODULE",
                    "No such built-in module: " + specifier, location);
    return false;
  }
  std::string name;
  if (absl::StartsWith(specifier, "file://")) {
    name = PathFromFileUrl(specifier);
  } else if (absl::StartsWith(specifier, "./") ||
             absl::StartsWith(specifier, "../") ||
             absl::StartsWith(specifier, "/")) {
    name = JoinPath(referrer_name.empty() ? "." : Dirname(referrer_name),
                    specifier);
  } else {
    failure->exception =
        ModuleError(context, "ERR_MODULE_NOT_FOUND",
                    absl::StrCat("Cannot find package '", specifier,
                                 "' imported from ", from),
                    location);
    return false;
  }
  std::string real_path = RealPath(name);
  auto it = real_path.empty() ? by_path_.end() : by_path_.find(real_path);
  if (it != by_path_.end()) {
    *entry = it->second.get();
    return true;
  }
  std::string source;
  if (real_path.empty() || !ReadFile(real_path, &source)) {
    failure->exception =
        ModuleError(context, "ERR_MODULE_NOT_FOUND",
                    absl::StrCat("Cannot find module '", AbsolutePath(name),
                                 "' imported from ", from),
                    location);
    return false;
  }
  *entry = Compile(context, name, real_path, source, failure);
  return *entry != nullptr;
}

bool ModuleLoader::Fetch(v8::Local<v8::Context> context,
                         Entry* entry,
                         Failure* failure) {
  if (entry->fetched)
    return true;
  entry->fetched = true;
  v8::Local<v8::Module> module = entry->module.Get(isolate_);
  v8::Local<v8::FixedArray> requests = module->GetModuleRequests();
  for (int i = 0; i < requests->Length(); i++) {
    v8::Local<v8::ModuleRequest> request =
        host_compat::FixedArrayGet(context, requests, i)
            .As<v8::ModuleRequest>();
    std::string specifier = ToUtf8(isolate_, request->GetSpecifier());
    if (entry->imports.contains(specifier))
      continue;
    v8::Location where =
        module->SourceOffsetToLocation(request->GetSourceOffset());
    std::string location =
        absl::StrCat(entry->name, ":", where.GetLineNumber() + 1, ":",
                     where.GetColumnNumber() + 1);
    Entry* imported;
    if (!Resolve(context, specifier, entry->name, location, &imported,
                 failure)) {
      entry->fetched = false;
      return false;
    }
    entry->imports[specifier] = imported;
    if (imported != nullptr && !Fetch(context, imported, failure)) {
      entry->fetched = false;
      return false;
    }
  }
  return true;
}

bool ModuleLoader::RunMain(v8::Local<v8::Context> context,
                           const std::string& name,
                           const std::string& source) {
  v8::HandleScope handle_scope(isolate_);
  std::string real_path = RealPath(name);
  if (real_path.empty())
    real_path = AbsolutePath(name);
  auto it = by_path_.find(real_path);
  Failure failure;
  Entry* entry = it != by_path_.end()
                     ? it->second.get()
                     : Compile(context, name, real_path, source, &failure);
  if (entry == nullptr || !Fetch(context, entry, &failure)) {
    reporter_->ReportException(context, failure.exception, failure.message);
    return true;
  }
  v8::Local<v8::Module> module = entry->module.Get(isolate_);
  v8::Local<v8::Value> result;
  // Modules are evaluated in the empty context (asyncctx/module.h).
  if (!module->InstantiateModule(context, ResolveStatic).FromMaybe(false) ||
      !EvaluateModule(context, module).ToLocal(&result)) {
    return false;
  }
  if (!result->IsPromise())
    return true;
  v8::Local<v8::Promise> promise = result.As<v8::Promise>();
  main_modules_.emplace_back(name, v8::Global<v8::Promise>(isolate_, promise));
  // Report what evaluation throws as uncaught (the handler also takes the
  // rejection off asyncctx's unhandled list).
  v8::Local<v8::Function> on_rejected;
  return v8::Function::New(context, OnMainRejected,
                           v8::External::New(isolate_, reporter_))
             .ToLocal(&on_rejected) &&
         !promise->Catch(context, on_rejected).IsEmpty();
}

std::string ModuleLoader::UnsettledTopLevelAwait() const {
  v8::HandleScope handle_scope(isolate_);
  for (const auto& [name, promise] : main_modules_) {
    if (promise.Get(isolate_)->State() == v8::Promise::kPending)
      return name;
  }
  return std::string();
}

// V8's resolve callback: every import was fetched before linking.
v8::MaybeLocal<v8::Module> ModuleLoader::ResolveStatic(
    v8::Local<v8::Context> context,
    v8::Local<v8::String> specifier,
    v8::Local<v8::FixedArray> attributes,
    v8::Local<v8::Module> referrer) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  ModuleLoader* loader = From(isolate);
  const Entry* entry = loader->Find(referrer);
  std::string name = ToUtf8(isolate, specifier);
  auto it = entry == nullptr ? decltype(entry->imports)::const_iterator()
                             : entry->imports.find(name);
  if (entry == nullptr || it == entry->imports.end()) {
    ThrowError(isolate, "Module not fetched: " + name);
    return {};
  }
  if (it->second == nullptr)
    return GetBuiltinModule(context, name);
  return it->second->module.Get(isolate);
}

v8::MaybeLocal<v8::Promise> ModuleLoader::ImportDynamic(
    v8::Local<v8::Context> context,
    v8::Local<v8::Data> host_defined_options,
    v8::Local<v8::Value> resource_name,
    v8::Local<v8::String> specifier,
    v8::Local<v8::FixedArray> attributes) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::EscapableHandleScope handle_scope(isolate);
  ModuleLoader* loader = From(isolate);
  v8::Local<v8::Promise::Resolver> resolver;
  if (!v8::Promise::Resolver::New(context).ToLocal(&resolver))
    return {};
  std::string referrer_name =
      !resource_name.IsEmpty() && resource_name->IsString()
          ? ToUtf8(isolate, resource_name)
          : std::string();
  Entry* entry;
  Failure failure;
  std::string specifier_name = ToUtf8(isolate, specifier);
  if (!loader->Resolve(context, specifier_name, referrer_name, std::string(),
                       &entry, &failure) ||
      (entry != nullptr && !loader->Fetch(context, entry, &failure))) {
    (void)resolver->Reject(context, failure.exception).IsNothing();
    return handle_scope.Escape(resolver->GetPromise());
  }
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::Module> module;
  if (entry != nullptr)
    module = entry->module.Get(isolate);
  v8::Local<v8::Value> result;
  bool ok =
      (!module.IsEmpty() ||
       GetBuiltinModule(context, specifier_name).ToLocal(&module)) &&
      module->InstantiateModule(context, ResolveStatic).FromMaybe(false) &&
      EvaluateModule(context, module).ToLocal(&result);
  if (!ok) {
    if (try_catch.HasTerminated())
      return {};
    (void)resolver->Reject(context, try_catch.Exception()).IsNothing();
    return handle_scope.Escape(resolver->GetPromise());
  }
  v8::Local<v8::Value> name_space = module->GetModuleNamespace();
  if (!result->IsPromise()) {
    (void)resolver->Resolve(context, name_space).IsNothing();
    return handle_scope.Escape(resolver->GetPromise());
  }
  v8::Local<v8::Value> data[] = {resolver, name_space};
  v8::Local<v8::Function> on_fulfilled;
  v8::Local<v8::Function> on_rejected;
  if (!v8::Function::New(context, OnImportEvaluated,
                         v8::Array::New(isolate, data, 2))
           .ToLocal(&on_fulfilled) ||
      !v8::Function::New(context, OnImportFailed, resolver)
           .ToLocal(&on_rejected) ||
      result.As<v8::Promise>()
          ->Then(context, on_fulfilled, on_rejected)
          .IsEmpty()) {
    return {};
  }
  return handle_scope.Escape(resolver->GetPromise());
}

void ModuleLoader::InitializeImportMeta(v8::Local<v8::Context> context,
                                        v8::Local<v8::Module> module,
                                        v8::Local<v8::Object> meta) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  const Entry* entry = From(isolate)->Find(module);
  if (entry == nullptr)
    return;
  const std::pair<const char*, std::string> properties[] = {
      {"url", FileUrl(entry->real_path)},
      {"filename", entry->real_path},
      {"dirname", Dirname(entry->real_path)},
  };
  for (const auto& [key, value] : properties) {
    if (meta->CreateDataProperty(context, ToV8String(isolate, key),
                                 ToV8String(isolate, value))
            .IsNothing()) {
      return;
    }
  }
}

}  // namespace shell
}  // namespace asyncctx
