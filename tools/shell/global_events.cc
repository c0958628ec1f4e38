// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/global_events.h"

#include <utility>

#include "tools/shell/bindings.h"
#include "tools/shell/error_reporter.h"
#include "tools/shell/errors.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {

GlobalEvents::GlobalEvents(v8::Isolate* isolate,
                           asyncctx::Runtime* runtime,
                           ErrorReporter* reporter)
    : isolate_(isolate), runtime_(runtime), reporter_(reporter) {}

namespace {

// Where an event keeps whether preventDefault() was called.
v8::Local<v8::Private> DefaultPreventedKey(v8::Isolate* isolate) {
  return v8::Private::ForApi(
      isolate, ToV8String(isolate, "asyncctx_shell.defaultPrevented"));
}

v8::MaybeLocal<v8::Value> GetProperty(v8::Local<v8::Context> context,
                                      v8::Local<v8::Value> object,
                                      const char* name) {
  if (!object->IsObject())
    return v8::Undefined(host_compat::IsolateOf(context));
  return object.As<v8::Object>()->Get(
      context, ToV8String(host_compat::IsolateOf(context), name));
}

}  // namespace

bool GlobalEvents::Install(v8::Local<v8::Context> context) {
  v8::Local<v8::External> data = v8::External::New(isolate_, this);
  if (!SetFunction(context, context->Global(), "addEventListener",
                   AddEventListener, data, v8::DontEnum) ||
      !SetFunction(context, context->Global(), "removeEventListener",
                   RemoveEventListener, data, v8::DontEnum)) {
    return false;
  }

  // Event, and its ErrorEvent and PromiseRejectionEvent subclasses. Only
  // the shell creates them; their prototypes hold preventDefault() and the
  // defaultPrevented getter, which check their receiver.
  v8::Local<v8::FunctionTemplate> event = v8::FunctionTemplate::New(isolate_);
  event->SetClassName(ToV8String(isolate_, "Event"));
  v8::Local<v8::Signature> signature = v8::Signature::New(isolate_, event);
  event->PrototypeTemplate()->Set(
      ToV8String(isolate_, "preventDefault"),
      v8::FunctionTemplate::New(isolate_, PreventDefault,
                                v8::Local<v8::Value>(), signature));
  event->PrototypeTemplate()->SetAccessorProperty(
      ToV8String(isolate_, "defaultPrevented"),
      v8::FunctionTemplate::New(isolate_, DefaultPrevented,
                                v8::Local<v8::Value>(), signature));
  event_class_.Reset(isolate_, event);
  const std::pair<v8::Global<v8::FunctionTemplate>*, const char*> subclasses[] =
      {{&error_event_class_, "ErrorEvent"},
       {&rejection_event_class_, "PromiseRejectionEvent"}};
  for (const auto& [global, name] : subclasses) {
    v8::Local<v8::FunctionTemplate> subclass =
        v8::FunctionTemplate::New(isolate_);
    subclass->SetClassName(ToV8String(isolate_, name));
    subclass->Inherit(event);
    global->Reset(isolate_, subclass);
  }

  // AsyncContext.Snapshot, read before any user code runs.
  v8::Local<v8::Value> async_context;
  v8::Local<v8::Value> snapshot;
  v8::Local<v8::Value> prototype;
  v8::Local<v8::Value> run;
  if (!GetProperty(context, context->Global(), "AsyncContext")
           .ToLocal(&async_context) ||
      !GetProperty(context, async_context, "Snapshot").ToLocal(&snapshot) ||
      !GetProperty(context, snapshot, "prototype").ToLocal(&prototype) ||
      !GetProperty(context, prototype, "run").ToLocal(&run) ||
      !snapshot->IsFunction() || !run->IsFunction()) {
    return false;
  }
  snapshot_class_.Reset(isolate_, snapshot.As<v8::Function>());
  snapshot_run_.Reset(isolate_, run.As<v8::Function>());
  return true;
}

bool GlobalEvents::ParseArguments(
    const v8::FunctionCallbackInfo<v8::Value>& info,
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

std::vector<GlobalEvents::Listener>::iterator GlobalEvents::Find(
    const std::string& type,
    v8::Local<v8::Function> callback) {
  for (auto it = listeners_.begin(); it != listeners_.end(); ++it) {
    if (it->type == type && it->callback == callback)
      return it;
  }
  return listeners_.end();
}

void GlobalEvents::AddEventListener(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* self =
      static_cast<GlobalEvents*>(info.Data().As<v8::External>()->Value());
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

void GlobalEvents::RemoveEventListener(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* self =
      static_cast<GlobalEvents*>(info.Data().As<v8::External>()->Value());
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

bool GlobalEvents::HasListeners(const std::string& type) const {
  for (const Listener& listener : listeners_) {
    if (listener.type == type)
      return true;
  }
  return false;
}

void GlobalEvents::PreventDefault(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  (void)info.This()
      ->SetPrivate(isolate->GetCurrentContext(), DefaultPreventedKey(isolate),
                   v8::True(isolate))
      .IsNothing();
}

void GlobalEvents::DefaultPrevented(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Value> value;
  if (info.This()
          ->GetPrivate(isolate->GetCurrentContext(),
                       DefaultPreventedKey(isolate))
          .ToLocal(&value)) {
    info.GetReturnValue().Set(value->IsTrue());
  }
}

v8::MaybeLocal<v8::Object> GlobalEvents::NewEvent(
    v8::Local<v8::Context> context,
    const v8::Global<v8::FunctionTemplate>& event_class,
    const std::string& type,
    const std::vector<std::pair<const char*, v8::Local<v8::Value>>>&
        properties) {
  v8::Local<v8::Function> constructor;
  v8::Local<v8::Object> event;
  if (!event_class.Get(isolate_)->GetFunction(context).ToLocal(&constructor) ||
      !constructor->NewInstance(context).ToLocal(&event) ||
      event
          ->SetPrivate(context, DefaultPreventedKey(isolate_),
                       v8::False(isolate_))
          .IsNothing()) {
    return {};
  }
  auto define = [&](const char* name, v8::Local<v8::Value> value) {
    return event
        ->DefineOwnProperty(context, ToV8String(isolate_, name), value,
                            v8::ReadOnly)
        .FromMaybe(false);
  };
  if (!define("type", ToV8String(isolate_, type)) ||
      !define("cancelable", v8::True(isolate_))) {
    return {};
  }
  for (const auto& [name, value] : properties) {
    if (!define(name, value))
      return {};
  }
  return event;
}

bool GlobalEvents::Dispatch(v8::Local<v8::Context> context,
                            const std::string& type,
                            v8::Local<v8::Object> event,
                            bool checkpoint) {
  // Listeners added during the dispatch wait for the next one; removed ones
  // that have not run yet are skipped (EventTarget's rules).
  std::vector<uint64_t> ids;
  for (const Listener& listener : listeners_) {
    if (listener.type == type)
      ids.push_back(listener.id);
  }
  for (uint64_t id : ids) {
    if (reporter_->failed())
      break;
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
    if (checkpoint && !reporter_->failed())
      runtime_->RunMicrotasks(context);
  }
  v8::Local<v8::Value> prevented;
  return event->GetPrivate(context, DefaultPreventedKey(isolate_))
             .ToLocal(&prevented) &&
         prevented->IsTrue();
}

void GlobalEvents::DispatchLifecycle(v8::Local<v8::Context> context,
                                     const std::string& type) {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Object> event;
  if (!HasListeners(type) ||
      !NewEvent(context, event_class_, type, {}).ToLocal(&event)) {
    return;
  }
  Dispatch(context, type, event, /*checkpoint=*/true);
}

bool GlobalEvents::DispatchError(v8::Local<v8::Context> context,
                                 v8::Local<v8::Value> exception,
                                 v8::Local<v8::Message> message) {
  v8::HandleScope handle_scope(isolate_);
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Value> text;
  v8::Local<v8::Value> filename = ToV8String(isolate_, "");
  v8::Local<v8::Value> lineno = v8::Integer::New(isolate_, 0);
  v8::Local<v8::Value> colno = v8::Integer::New(isolate_, 0);
  if (!message.IsEmpty()) {
    // "Uncaught Error: boom", as browsers word it.
    text = message->Get();
    if (message->GetScriptResourceName()->IsString())
      filename = message->GetScriptResourceName();
    lineno = v8::Integer::New(isolate_,
                              message->GetLineNumber(context).FromMaybe(0));
    colno = v8::Integer::New(
        isolate_, message->GetStartColumn(context).FromMaybe(-1) + 1);
  } else {
    text = ToV8String(isolate_, "Uncaught " + ToUtf8(isolate_, exception));
  }
  v8::Local<v8::Object> event;
  if (!NewEvent(context, error_event_class_, "error",
                {{"error", exception},
                 {"message", text},
                 {"filename", filename},
                 {"lineno", lineno},
                 {"colno", colno}})
           .ToLocal(&event)) {
    return false;
  }
  return Dispatch(context, "error", event, /*checkpoint=*/false);
}

bool GlobalEvents::DispatchUnhandledRejection(v8::Local<v8::Context> context,
                                              v8::Local<v8::Promise> promise,
                                              v8::Local<v8::Value> reason) {
  v8::HandleScope handle_scope(isolate_);
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Object> event;
  if (!NewEvent(context, rejection_event_class_, "unhandledrejection",
                {{"promise", promise}, {"reason", reason}})
           .ToLocal(&event)) {
    return false;
  }
  bool prevented =
      Dispatch(context, "unhandledrejection", event, /*checkpoint=*/false);
  v8::Local<v8::Object> snapshot;
  if (prevented && !reporter_->failed() &&
      snapshot_class_.Get(isolate_)->NewInstance(context).ToLocal(&snapshot)) {
    WatchedRejection watched;
    watched.promise.Reset(isolate_, promise);
    watched.promise.SetWeak();
    watched.snapshot.Reset(isolate_, snapshot);
    watched_.push_back(std::move(watched));
  }
  // Listeners run after the checkpoint that found the rejection; give the
  // jobs they queued theirs.
  if (!reporter_->failed())
    runtime_->RunMicrotasks(context);
  return prevented;
}

void GlobalEvents::RunRejectionHandled(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  v8::Local<v8::Array> data = info.Data().As<v8::Array>();
  v8::Local<v8::Value> self;
  v8::Local<v8::Value> promise;
  if (!data->Get(context, 0).ToLocal(&self) ||
      !data->Get(context, 1).ToLocal(&promise)) {
    return;
  }
  auto* events = static_cast<GlobalEvents*>(self.As<v8::External>()->Value());
  v8::Local<v8::Object> event;
  if (events
          ->NewEvent(context, events->rejection_event_class_,
                     "rejectionhandled",
                     {{"promise", promise},
                      {"reason", promise.As<v8::Promise>()->Result()}})
          .ToLocal(&event)) {
    events->Dispatch(context, "rejectionhandled", event,
                     /*checkpoint=*/false);
  }
}

void GlobalEvents::DispatchRejectionHandled(v8::Local<v8::Context> context) {
  if (watched_.empty())
    return;
  v8::HandleScope handle_scope(isolate_);
  std::vector<WatchedRejection> handled;
  for (auto it = watched_.begin(); it != watched_.end();) {
    if (it->promise.IsEmpty() || it->promise.Get(isolate_)->HasHandler()) {
      if (!it->promise.IsEmpty())
        handled.push_back(std::move(*it));
      it = watched_.erase(it);
    } else {
      ++it;
    }
  }
  for (WatchedRejection& watched : handled) {
    if (reporter_->failed())
      return;
    // In the frame that was current when the promise was rejected.
    v8::Local<v8::Value> data[] = {v8::External::New(isolate_, this),
                                   watched.promise.Get(isolate_)};
    v8::Local<v8::Function> dispatch;
    v8::Local<v8::Value> argv[1];
    v8::TryCatch try_catch(isolate_);
    if (!v8::Function::New(context, RunRejectionHandled,
                           v8::Array::New(isolate_, data, 2))
             .ToLocal(&dispatch)) {
      continue;
    }
    argv[0] = dispatch;
    if (snapshot_run_.Get(isolate_)
            ->Call(context, watched.snapshot.Get(isolate_), 1, argv)
            .IsEmpty()) {
      reporter_->ReportTryCatch(context, try_catch);
    }
    if (!reporter_->failed())
      runtime_->RunMicrotasks(context);
  }
}

}  // namespace shell
}  // namespace asyncctx
