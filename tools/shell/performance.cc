// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/performance.h"

#include "tools/shell/bindings.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {
namespace {

void Now(const v8::FunctionCallbackInfo<v8::Value>& info) {
  const auto* origin =
      static_cast<const TimeOrigin*>(info.Data().As<v8::External>()->Value());
  std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - origin->monotonic;
  info.GetReturnValue().Set(elapsed.count());
}

}  // namespace

bool InstallPerformance(v8::Local<v8::Context> context,
                        const TimeOrigin* origin) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Object> performance = v8::Object::New(isolate);
  // The External only carries the pointer; V8 never writes through it.
  v8::Local<v8::External> data =
      v8::External::New(isolate, const_cast<TimeOrigin*>(origin));
  std::chrono::duration<double, std::milli> wall =
      origin->wall.time_since_epoch();
  return SetFunction(context, performance, "now", Now, data) &&
         performance
             ->DefineOwnProperty(context, ToV8String(isolate, "timeOrigin"),
                                 v8::Number::New(isolate, wall.count()),
                                 v8::ReadOnly)
             .FromMaybe(false) &&
         context->Global()
             ->DefineOwnProperty(context, ToV8String(isolate, "performance"),
                                 performance, v8::DontEnum)
             .FromMaybe(false);
}

}  // namespace shell
}  // namespace asyncctx
