// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/timers.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/shell/bindings.h"
#include "tools/shell/errors.h"
#include "tools/shell/event_loop.h"
#include "tools/shell/inspect/inspect.h"
#include "tools/shell/inspect/inspect_primitives.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {
namespace {

// Node's TIMEOUT_MAX: libuv takes a signed 32-bit number of milliseconds.
constexpr double kTimeoutMax = 2147483647;

}  // namespace

Timers::Timers(v8::Isolate* isolate, EventLoop* loop)
    : isolate_(isolate), loop_(loop) {}

Timers* Timers::From(const v8::FunctionCallbackInfo<v8::Value>& info) {
  return static_cast<Timers*>(info.Data().As<v8::External>()->Value());
}

v8::Local<v8::FunctionTemplate> Timers::NewClass(const char* name,
                                                 v8::Local<v8::Value> data,
                                                 bool is_timeout) {
  v8::Local<v8::FunctionTemplate> type =
      v8::FunctionTemplate::New(isolate_, IllegalConstructor, data);
  type->SetClassName(ToV8String(isolate_, name));
  type->InstanceTemplate()->SetInternalFieldCount(EventLoop::kTaskField + 1);
  // The signature makes V8 throw "Illegal invocation" for a receiver that is
  // not an instance, before our code runs.
  v8::Local<v8::Signature> signature = v8::Signature::New(isolate_, type);
  v8::Local<v8::ObjectTemplate> prototype = type->PrototypeTemplate();
  auto method = [&](v8::Local<v8::Name> key, v8::FunctionCallback callback) {
    v8::Local<v8::FunctionTemplate> function =
        v8::FunctionTemplate::New(isolate_, callback, data, signature, 0,
                                  v8::ConstructorBehavior::kThrow);
    if (key->IsString())
      function->SetClassName(key.As<v8::String>());
    prototype->Set(key, function, v8::DontEnum);
  };
  method(ToV8String(isolate_, "ref"), Ref);
  method(ToV8String(isolate_, "unref"), Unref);
  method(ToV8String(isolate_, "hasRef"), HasRef);
  if (is_timeout) {
    method(ToV8String(isolate_, "refresh"), Refresh);
    method(ToV8String(isolate_, "close"), Close);
    method(v8::Symbol::GetToPrimitive(isolate_), ToPrimitive);
  }
  return type;
}

bool Timers::Install(v8::Local<v8::Context> context) {
  v8::Local<v8::External> data = v8::External::New(isolate_, this);
  timeout_class_.Reset(isolate_, NewClass("Timeout", data, true));
  immediate_class_.Reset(isolate_, NewClass("Immediate", data, false));
  v8::Local<v8::Object> global = context->Global();
  const struct {
    const char* name;
    v8::FunctionCallback callback;
  } kFunctions[] = {
      {"setTimeout", SetTimeout},     {"clearTimeout", ClearTimeout},
      {"setInterval", SetInterval},   {"clearInterval", ClearTimeout},
      {"setImmediate", SetImmediate}, {"clearImmediate", ClearImmediate},
  };
  for (const auto& function : kFunctions) {
    if (!SetFunction(context, global, function.name, function.callback, data,
                     v8::DontEnum)) {
      return false;
    }
  }
  return true;
}

void Timers::StartTimer(const v8::FunctionCallbackInfo<v8::Value>& info,
                        bool repeat) {
  Timers* self = From(info);
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info[0]->IsFunction()) {
    ThrowInvalidArgType(context, "callback", "function", info[0]);
    return;
  }
  // Node: `after *= 1`, then anything outside [1, TIMEOUT_MAX] (NaN too)
  // becomes 1.
  double delay = 1;
  if (info.Length() > 1) {
    v8::Local<v8::Number> number;
    if (!info[1]->ToNumber(context).ToLocal(&number))
      return;
    delay = number->Value();
  }
  if (!(delay >= 1 && delay <= kTimeoutMax)) {
    if (delay > kTimeoutMax) {
      std::string text =
          "TimeoutOverflowWarning: " + FormatNumber(context, delay) +
          " does not fit into a 32-bit signed integer.\n"
          "Timeout duration was set to 1.\n";
      fputs(text.c_str(), stderr);
    }
    delay = 1;
  }
  std::vector<v8::Local<v8::Value>> args;
  for (int i = 2; i < info.Length(); ++i)
    args.push_back(info[i]);
  v8::Local<v8::Object> timeout;
  if (!self->timeout_class_.Get(isolate)
           ->InstanceTemplate()
           ->NewInstance(context)
           .ToLocal(&timeout)) {
    return;
  }
  self->loop_->Start(Task::Kind::kTimeout, timeout, info[0].As<v8::Function>(),
                     args, delay, repeat);
  info.GetReturnValue().Set(timeout);
}

void Timers::SetTimeout(const v8::FunctionCallbackInfo<v8::Value>& info) {
  StartTimer(info, false);
}

void Timers::SetInterval(const v8::FunctionCallbackInfo<v8::Value>& info) {
  StartTimer(info, true);
}

void Timers::SetImmediate(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Timers* self = From(info);
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info[0]->IsFunction()) {
    ThrowInvalidArgType(context, "callback", "function", info[0]);
    return;
  }
  std::vector<v8::Local<v8::Value>> args;
  for (int i = 1; i < info.Length(); ++i)
    args.push_back(info[i]);
  v8::Local<v8::Object> immediate;
  if (!self->immediate_class_.Get(isolate)
           ->InstanceTemplate()
           ->NewInstance(context)
           .ToLocal(&immediate)) {
    return;
  }
  self->loop_->Start(Task::Kind::kImmediate, immediate,
                     info[0].As<v8::Function>(), args, 0, false);
  info.GetReturnValue().Set(immediate);
}

Task* Timers::TaskOf(v8::Local<v8::Value> value,
                     const v8::Global<v8::FunctionTemplate>& type) {
  if (!value->IsObject() || !type.Get(isolate_)->HasInstance(value))
    return nullptr;
  return static_cast<Task*>(host_compat::GetInternalPointer(
      value.As<v8::Object>(), EventLoop::kTaskField));
}

// Like Node's, accepts a Timeout, or its id as a number or numeric string;
// anything else is ignored.
void Timers::ClearTimeout(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Timers* self = From(info);
  v8::Local<v8::Value> target = info[0];
  Task* task = nullptr;
  if (target->IsNumber() || target->IsString()) {
    v8::Local<v8::Number> id;
    if (!target->ToNumber(info.GetIsolate()->GetCurrentContext())
             .ToLocal(&id)) {
      return;
    }
    task = self->loop_->FindTimeout(id->Value());
  } else {
    task = self->TaskOf(target, self->timeout_class_);
  }
  if (task != nullptr)
    self->loop_->Clear(task);
}

void Timers::ClearImmediate(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Timers* self = From(info);
  Task* task = self->TaskOf(info[0], self->immediate_class_);
  if (task != nullptr)
    self->loop_->Clear(task);
}

void Timers::IllegalConstructor(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  ThrowTypeError(info.GetIsolate(), "Illegal constructor");
}

bool Timers::Unwrap(const v8::FunctionCallbackInfo<v8::Value>& info,
                    Task** task) {
  // The signature guarantees the holder is a Timeout or Immediate.
  *task = static_cast<Task*>(host_compat::GetInternalPointer(
      host_compat::HolderOf(info), EventLoop::kTaskField));
  return *task != nullptr;
}

void Timers::Ref(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Task* task;
  if (From(info)->Unwrap(info, &task))
    From(info)->loop_->SetRef(task, true);
  info.GetReturnValue().Set(info.This());
}

void Timers::Unref(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Task* task;
  if (From(info)->Unwrap(info, &task))
    From(info)->loop_->SetRef(task, false);
  info.GetReturnValue().Set(info.This());
}

void Timers::HasRef(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Task* task;
  bool has_ref = From(info)->Unwrap(info, &task) && task->has_ref();
  info.GetReturnValue().Set(has_ref);
}

void Timers::Refresh(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Task* task;
  if (From(info)->Unwrap(info, &task))
    From(info)->loop_->Refresh(task);
  info.GetReturnValue().Set(info.This());
}

void Timers::Close(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Task* task;
  if (From(info)->Unwrap(info, &task))
    From(info)->loop_->Clear(task);
  info.GetReturnValue().Set(info.This());
}

void Timers::ToPrimitive(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Task* task;
  if (From(info)->Unwrap(info, &task))
    info.GetReturnValue().Set(From(info)->loop_->ExposeId(task));
  else
    info.GetReturnValue().Set(std::nan(""));
}

}  // namespace shell
}  // namespace asyncctx
