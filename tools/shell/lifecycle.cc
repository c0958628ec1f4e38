// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/lifecycle.h"

#include <utility>

#include "tools/shell/bindings.h"
#include "tools/shell/error_reporter.h"
#include "tools/shell/errors.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {

Lifecycle::Lifecycle(v8::Isolate* isolate,
                     asyncctx::Runtime* runtime,
                     ErrorReporter* reporter)
    : isolate_(isolate), runtime_(runtime), reporter_(reporter) {}

bool Lifecycle::Install(v8::Local<v8::Context> context) {
  v8::Local<v8::External> data = v8::External::New(isolate_, this);
  return SetFunction(context, context->Global(), "addEventListener",
                     AddEventListener, data, v8::DontEnum) &&
         SetFunction(context, context->Global(), "removeEventListener",
                     RemoveEventListener, data, v8::DontEnum);
}

bool Lifecycle::ParseArguments(const v8::FunctionCallbackInfo<v8::Value>& info,
                               const char* method,
                               std::string* type,
                               v8::Local<v8::Function>* callback) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (info.Length() < 2) {
    ThrowTypeError(isolate, std::string("Failed to execute '") + method +
                                "': 2 arguments required, but only " +
                                std::to_string(info.Length()) + " present.");
    return false;
  }
  if (info[0]->IsSymbol()) {
    ThrowInvalidArgType(context, "type", "string", info[0]);
    return false;
  }
  v8::Local<v8::String> type_string;
  if (!info[0]->ToString(context).ToLocal(&type_string))
    return false;
  *type = ToUtf8(isolate, type_string);
  if (info[1]->IsNullOrUndefined())
    return true;
  if (!info[1]->IsFunction()) {
    ThrowInvalidArgType(context, "listener", "function", info[1]);
    return false;
  }
  *callback = info[1].As<v8::Function>();
  return true;
}

std::vector<Lifecycle::Listener>::iterator Lifecycle::Find(
    const std::string& type,
    v8::Local<v8::Function> callback) {
  for (auto it = listeners_.begin(); it != listeners_.end(); ++it) {
    if (it->type == type && it->callback == callback)
      return it;
  }
  return listeners_.end();
}

void Lifecycle::AddEventListener(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* self = static_cast<Lifecycle*>(info.Data().As<v8::External>()->Value());
  v8::Local<v8::Context> context = info.GetIsolate()->GetCurrentContext();
  std::string type;
  v8::Local<v8::Function> callback;
  if (!ParseArguments(info, "addEventListener", &type, &callback) ||
      callback.IsEmpty()) {
    return;
  }
  bool once = false;
  if (info[2]->IsObject()) {
    v8::Local<v8::Value> value;
    if (!info[2]
             .As<v8::Object>()
             ->Get(context, ToV8String(info.GetIsolate(), "once"))
             .ToLocal(&value)) {
      return;
    }
    once = value->BooleanValue(info.GetIsolate());
  }
  // As with EventTarget, adding the same listener twice has no effect.
  if (self->Find(type, callback) != self->listeners_.end())
    return;
  self->listeners_.push_back(
      Listener{self->next_id_++, type,
               v8::Global<v8::Function>(info.GetIsolate(), callback), once});
}

void Lifecycle::RemoveEventListener(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* self = static_cast<Lifecycle*>(info.Data().As<v8::External>()->Value());
  std::string type;
  v8::Local<v8::Function> callback;
  if (!ParseArguments(info, "removeEventListener", &type, &callback) ||
      callback.IsEmpty()) {
    return;
  }
  auto it = self->Find(type, callback);
  if (it != self->listeners_.end())
    self->listeners_.erase(it);
}

void Lifecycle::Dispatch(v8::Local<v8::Context> context,
                         const std::string& type) {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Object> event = v8::Object::New(isolate_);
  if (event
          ->Set(context, ToV8String(isolate_, "type"),
                ToV8String(isolate_, type))
          .IsNothing()) {
    return;
  }
  // Listeners added during the dispatch wait for the next one; removed ones
  // that have not run yet are skipped (EventTarget's rules).
  std::vector<uint64_t> ids;
  for (const Listener& listener : listeners_) {
    if (listener.type == type)
      ids.push_back(listener.id);
  }
  for (uint64_t id : ids) {
    if (reporter_->failed())
      return;
    auto it = listeners_.begin();
    while (it != listeners_.end() && it->id != id)
      ++it;
    if (it == listeners_.end())
      continue;
    v8::Local<v8::Function> callback = it->callback.Get(isolate_);
    if (it->once)
      listeners_.erase(it);
    v8::Local<v8::Value> argv[] = {event};
    {
      v8::TryCatch try_catch(isolate_);
      if (callback->Call(context, context->Global(), 1, argv).IsEmpty())
        reporter_->ReportTryCatch(context, try_catch);
    }
    if (!reporter_->failed())
      runtime_->RunMicrotasks(context);
  }
}

}  // namespace shell
}  // namespace asyncctx
