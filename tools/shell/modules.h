// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ModuleLoader: the shell's ES modules, and the reference for a host that
// serves asyncctx's `node:async_hooks` (include/asyncctx/module.h).
//
// * A file named on the command line that ends in `.mjs` (or any file, with
//   --module) runs as a module: compiled, linked, evaluated, with the
//   microtask checkpoint after it as for a classic script. Top-level `await`
//   continues in later checkpoints; if the loop drains while it is still
//   pending, the shell warns and exits with 13, as Node.js does.
// * `import` (static) and `import()` (from modules and classic scripts)
//   take relative paths (`./x.mjs`, `../y.js`, absolute paths, `file://`
//   URLs), resolved against the importing file, and `node:async_hooks` /
//   `async_hooks`. Every imported file is a module. One file is one module
//   however it is spelled (the key is its real path).
// * `import.meta.url` is the file's `file://` URL; `import.meta.filename`
//   and `import.meta.dirname` its absolute path and directory (Node 20.11+).
// * A missing module, a syntax error or a failed import throws; at the top
//   level the shell reports it with the file and line and exits with 1, as
//   for any uncaught error. Errors carry Node's codes
//   (ERR_MODULE_NOT_FOUND, ERR_UNKNOWN_BUILTIN_MODULE).
//
// Modules are named in stacks and error reports after the path the user
// gave (imports: the importing file's directory joined with the specifier),
// so reports read like the classic scripts' ones.

#ifndef TOOLS_SHELL_MODULES_H_
#define TOOLS_SHELL_MODULES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "v8-context.h"
#include "v8-isolate.h"
#include "v8-local-handle.h"
#include "v8-persistent-handle.h"
#include "v8-promise.h"
#include "v8-script.h"

namespace asyncctx {
namespace shell {

class ErrorReporter;

class ModuleLoader {
 public:
  // Installs the isolate's dynamic-import and import.meta callbacks. One
  // loader per isolate; `reporter` must outlive it.
  ModuleLoader(v8::Isolate* isolate, ErrorReporter* reporter);
  ~ModuleLoader();

  ModuleLoader(const ModuleLoader&) = delete;
  ModuleLoader& operator=(const ModuleLoader&) = delete;

  // Compiles, links and evaluates `source` as the module `name`. What it or
  // its imports throw (a missing file, a syntax error, at once or after a
  // top-level await) is reported as uncaught. Returns false with the
  // exception pending only when V8 fails to link or evaluate it.
  bool RunMain(v8::Local<v8::Context> context,
               const std::string& name,
               const std::string& source);

  // The name of a module run by RunMain() whose top-level await has not
  // settled, or empty.
  std::string UnsettledTopLevelAwait() const;

 private:
  struct Entry {
    std::string name;       // as shown in stacks
    std::string real_path;  // the key: one module per file
    v8::Global<v8::Module> module;
    // What each of its import specifiers resolved to, filled by Fetch()
    // before V8 links the module (null: node:async_hooks).
    absl::flat_hash_map<std::string, const Entry*> imports;
    bool fetched = false;
  };

  // Why a module could not be loaded. Loading happens outside JavaScript,
  // where a thrown exception would stay pending in the isolate, so loading
  // catches it and hands it on.
  struct Failure {
    v8::Local<v8::Value> exception;
    v8::Local<v8::Message> message;  // may be empty
  };

  static ModuleLoader* From(v8::Isolate* isolate);

  // Finds or compiles the module `specifier` names from the file
  // `referrer_name` (*entry stays null for node:async_hooks). `location`
  // (may be empty) says where the import is, for the error when it is
  // missing. False with *failure set on error.
  bool Resolve(v8::Local<v8::Context> context,
               const std::string& specifier,
               const std::string& referrer_name,
               const std::string& location,
               Entry** entry,
               Failure* failure);
  Entry* Compile(v8::Local<v8::Context> context,
                 const std::string& name,
                 const std::string& real_path,
                 const std::string& source,
                 Failure* failure);
  // Resolves and compiles every module `entry` imports, transitively, so
  // that V8's resolve callback (which must not compile: an exception thrown
  // inside it cannot propagate) only looks them up.
  bool Fetch(v8::Local<v8::Context> context, Entry* entry, Failure* failure);
  Entry* Find(v8::Local<v8::Module> module) const;

  static v8::MaybeLocal<v8::Module> ResolveStatic(
      v8::Local<v8::Context> context,
      v8::Local<v8::String> specifier,
      v8::Local<v8::FixedArray> attributes,
      v8::Local<v8::Module> referrer);
  static v8::MaybeLocal<v8::Promise> ImportDynamic(
      v8::Local<v8::Context> context,
      v8::Local<v8::Data> host_defined_options,
      v8::Local<v8::Value> resource_name,
      v8::Local<v8::String> specifier,
      v8::Local<v8::FixedArray> attributes);
  static void InitializeImportMeta(v8::Local<v8::Context> context,
                                   v8::Local<v8::Module> module,
                                   v8::Local<v8::Object> meta);

  v8::Isolate* const isolate_;
  ErrorReporter* const reporter_;
  absl::flat_hash_map<std::string, std::unique_ptr<Entry>> by_path_;
  // Module::GetIdentityHash() -> modules with that hash (hashes collide).
  absl::flat_hash_map<int, std::vector<Entry*>> by_hash_;
  // Evaluation promises of the main modules, for UnsettledTopLevelAwait().
  std::vector<std::pair<std::string, v8::Global<v8::Promise>>> main_modules_;
};

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_MODULES_H_
