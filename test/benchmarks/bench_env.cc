// Copyright 2026 the asyncctx authors. All rights reserved.

#include "test/benchmarks/bench_env.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "tools/v8_host/v8_host.h"
#include "v8-array-buffer.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-microtask-queue.h"
#include "v8-primitive.h"
#include "v8-template.h"

namespace asyncctx {
namespace bench {

namespace {

void EmptyCallback(const v8::FunctionCallbackInfo<v8::Value>&) {}

void EnqueueMicrotaskCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (!info[0]->IsFunction())
    return;
  info.GetIsolate()->EnqueueMicrotask(info[0].As<v8::Function>());
}

[[noreturn]] void DieWithException(v8::Isolate* isolate,
                                   v8::TryCatch& try_catch,
                                   const std::string& source) {
  v8::String::Utf8Value error(isolate, try_catch.Exception());
  std::fprintf(stderr, "benchmarks: script threw: %s\n%s\n",
               *error != nullptr ? *error : "<unprintable>", source.c_str());
  std::exit(1);
}

v8::Local<v8::String> Str(v8::Isolate* isolate, const std::string& s) {
  return v8::String::NewFromUtf8(isolate, s.c_str(), v8::NewStringType::kNormal,
                                 static_cast<int>(s.size()))
      .ToLocalChecked();
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty())
    return 0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1)
    return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

JsEnv::JsEnv(bool install, RuntimeOptions options)
    : allocator_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator_.get();
  isolate_ = host::NewIsolate(params);
  isolate_->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = v8::Context::New(isolate_);
  if (install) {
    if (options.platform == nullptr)
      options.platform = Platform();
    runtime_ = Runtime::Create(isolate_, std::move(options));
    if (!runtime_ || !runtime_->Install(context).FromMaybe(false)) {
      std::fprintf(stderr, "benchmarks: installing asyncctx failed\n");
      std::exit(1);
    }
  }
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> natives = v8::Object::New(isolate_);
  v8::Local<v8::Function> empty_ctor;
  v8::Local<v8::Function> empty_fn;
  v8::Local<v8::Function> enqueue;
  if (!v8::FunctionTemplate::New(isolate_, EmptyCallback)
           ->GetFunction(context)
           .ToLocal(&empty_ctor) ||
      !v8::Function::New(context, EmptyCallback, v8::Local<v8::Value>(), 0,
                         v8::ConstructorBehavior::kThrow)
           .ToLocal(&empty_fn) ||
      !v8::Function::New(context, EnqueueMicrotaskCallback,
                         v8::Local<v8::Value>(), 1,
                         v8::ConstructorBehavior::kThrow)
           .ToLocal(&enqueue) ||
      natives->Set(context, Str(isolate_, "emptyFunction"), empty_fn)
          .IsNothing() ||
      natives->Set(context, Str(isolate_, "EmptyConstructor"), empty_ctor)
          .IsNothing() ||
      natives->Set(context, Str(isolate_, "enqueueMicrotask"), enqueue)
          .IsNothing() ||
      context->Global()
          ->Set(context, Str(isolate_, "benchNatives"), natives)
          .IsNothing()) {
    std::fprintf(stderr, "benchmarks: installing the references failed\n");
    std::exit(1);
  }
  context_.Reset(isolate_, context);
}

JsEnv::~JsEnv() {
  {
    v8::Isolate::Scope isolate_scope(isolate_);
    scripts_.clear();
    context_.Reset();
    runtime_.reset();
  }
  host::DisposeIsolate(isolate_);
}

void JsEnv::Run(const std::string& source) {
  Scope scope(*this);
  v8::Local<v8::Context> context = this->context();
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Script> script;
  if (!v8::Script::Compile(context, Str(isolate_, source)).ToLocal(&script) ||
      script->Run(context).IsEmpty()) {
    DieWithException(isolate_, try_catch, source);
  }
}

double JsEnv::RunNumber(const std::string& source) {
  Scope scope(*this);
  v8::Local<v8::Context> context = this->context();
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> result;
  if (!v8::Script::Compile(context, Str(isolate_, source)).ToLocal(&script) ||
      !script->Run(context).ToLocal(&result)) {
    DieWithException(isolate_, try_catch, source);
  }
  return result->NumberValue(context).FromMaybe(-1);
}

int JsEnv::Compile(const std::string& source) {
  Scope scope(*this);
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Script> script;
  if (!v8::Script::Compile(context(), Str(isolate_, source)).ToLocal(&script)) {
    DieWithException(isolate_, try_catch, source);
  }
  scripts_.emplace_back(isolate_, script);
  return static_cast<int>(scripts_.size() - 1);
}

void JsEnv::RunCompiled(int script) {
  Scope scope(*this);
  v8::TryCatch try_catch(isolate_);
  if (scripts_[script].Get(isolate_)->Run(context()).IsEmpty()) {
    DieWithException(isolate_, try_catch, "<compiled script>");
  }
}

void JsEnv::CollectGarbageAndPump() {
  {
    v8::Isolate::Scope isolate_scope(isolate_);
    isolate_->RequestGarbageCollectionForTesting(
        v8::Isolate::kFullGarbageCollection);
  }
  PumpTasks();
}

void JsEnv::PumpTasks() {
  Scope scope(*this);
  while (host::PumpMessageLoop(isolate_)) {
  }
  if (runtime_) {
    runtime_->RunMicrotasks(context());
  } else {
    isolate_->PerformMicrotaskCheckpoint();
  }
}

}  // namespace bench
}  // namespace asyncctx
