// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/bench_natives.h"

#include "tools/shell/bindings.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-object.h"
#include "v8-primitive.h"
#include "v8-statistics.h"
#include "v8-template.h"

namespace asyncctx {
namespace shell {

namespace {

void Empty(const v8::FunctionCallbackInfo<v8::Value>&) {}

void Enqueue(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (info[0]->IsFunction()) {
    info.GetIsolate()->EnqueueMicrotask(info[0].As<v8::Function>());
  }
}

// heapStatistics(): {usedHeapSize, totalHeapSize, mallocedMemory} from
// Isolate::GetHeapStatistics, for the memory benchmark.
void HeapStatisticsOf(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  v8::HeapStatistics stats;
  isolate->GetHeapStatistics(&stats);
  v8::Local<v8::Object> result = v8::Object::New(isolate);
  const struct {
    const char* name;
    size_t value;
  } fields[] = {
      {"usedHeapSize", stats.used_heap_size()},
      {"totalHeapSize", stats.total_heap_size()},
      {"mallocedMemory", stats.malloced_memory()},
  };
  for (const auto& field : fields) {
    if (result
            ->Set(context, ToV8String(isolate, field.name),
                  v8::Number::New(isolate, static_cast<double>(field.value)))
            .IsNothing()) {
      return;
    }
  }
  info.GetReturnValue().Set(result);
}

}  // namespace

bool InstallBenchNatives(v8::Local<v8::Context> context) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Object> natives = v8::Object::New(isolate);
  v8::Local<v8::Function> constructor;
  if (!SetFunction(context, natives, "emptyFunction", Empty) ||
      !SetFunction(context, natives, "enqueueMicrotask", Enqueue) ||
      !SetFunction(context, natives, "heapStatistics", HeapStatisticsOf) ||
      !v8::FunctionTemplate::New(isolate, Empty)
           ->GetFunction(context)
           .ToLocal(&constructor) ||
      natives
          ->Set(context, ToV8String(isolate, "EmptyConstructor"), constructor)
          .IsNothing()) {
    return false;
  }
  return context->Global()
      ->DefineOwnProperty(context, ToV8String(isolate, "benchNatives"), natives,
                          v8::DontEnum)
      .FromMaybe(false);
}

}  // namespace shell
}  // namespace asyncctx
