// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx::ContextKey: read and write request context from C++.
//
// A ContextKey is a storage key like an AsyncLocalStorage instance, owned by
// native code (a logger, a tracer). Its value lives in the same context frames
// as JavaScript's stores, so it follows awaits, promise reactions, microtasks
// and host callbacks exactly as they do.
//
//   asyncctx::ContextKey request_id(context, "requestId");
//   {
//     asyncctx::ContextKey::Scope scope(request_id, context, id_value);
//     // JavaScript started here, and everything it schedules, sees id_value.
//   }
//   v8::Local<v8::Value> id = request_id.Get(context);  // in a later callback
//
// A key can also wrap an existing AsyncLocalStorage instance or
// AsyncContext.Variable so that C++ reads what JavaScript stored.

#ifndef ASYNCCTX_CONTEXT_KEY_H_
#define ASYNCCTX_CONTEXT_KEY_H_

#include <memory>

#include "asyncctx/export.h"
#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-maybe.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"
#include "v8-value.h"

namespace asyncctx {

// A storage key owned by native code (see the top of this file).
class ASYNCCTX_EXPORT ContextKey {
 public:
  // A new native key. `name` is for debugging. `context` must be installed.
  ContextKey(v8::Local<v8::Context> context, const char* name);

  // Wraps an AsyncLocalStorage instance or AsyncContext.Variable created in
  // `context`. Returns null if `store` is neither. Stores are recognized by
  // an internal brand (the classes' private fields), whatever names the
  // host installed them under: a user class put in the `AsyncLocalStorage`
  // global is not taken for one.
  static std::unique_ptr<ContextKey> FromJavaScript(
      v8::Local<v8::Context> context,
      v8::Local<v8::Value> store);

  ~ContextKey();

  // The value in the current frame, or undefined when the key is absent
  // (for a wrapped store: what getStore() / get() returns, which includes
  // its defaultValue). Empty only if a wrapped store's method threw.
  v8::MaybeLocal<v8::Value> Get(v8::Local<v8::Context> context) const;

  // True if the current frame holds a value for this key.
  bool Has(v8::Local<v8::Context> context) const;

  // Enters a new frame in which this key maps to `value`, restoring the
  // previous frame object on destruction (like AsyncLocalStorage.run).
  //
  // Scopes nest: closing one while a scope opened after it is still open is
  // a fatal error, as is using the key with a context of another isolate.
  class ASYNCCTX_NODISCARD_EXPORT Scope {
   public:
    // `context` must be installed and must be the context whose frame the
    // key is used in.
    Scope(const ContextKey& key,
          v8::Local<v8::Context> context,
          v8::Local<v8::Value> value);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    v8::Isolate* isolate_;
    v8::Global<v8::Context> context_;
    // Empty when the previous frame was the context's root.
    v8::Global<v8::Value> saved_frame_;
    // The scope that was innermost when this one opened.
    const Scope* enclosing_ = nullptr;
  };

 private:
  explicit ContextKey(v8::Isolate* isolate) : isolate_(isolate) {}
  // A fatal error naming `api` unless `isolate` is the key's.
  void CheckIsolate(v8::Isolate* isolate, const char* api) const;
  v8::Isolate* isolate_;
  // The object identifying this key in frames.
  v8::Global<v8::Object> key_;
  // For wrapped stores: the method that reads it ("getStore" or "get").
  v8::Global<v8::Function> getter_;
};

}  // namespace asyncctx

#endif  // ASYNCCTX_CONTEXT_KEY_H_
