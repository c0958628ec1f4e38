// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8 10.2 from Debian's libnode108: the program owns V8 and libplatform's
// default platform (see v8_host.h).

#include <memory>

#include "libplatform/libplatform.h"
#include "tools/v8_host/v8_host.h"
#include "v8-initialization.h"

namespace asyncctx {
namespace host {

namespace {
std::unique_ptr<v8::Platform> g_platform;
}  // namespace

v8::Platform* InitializeV8(const char* argv0) {
  if (g_platform)
    return g_platform.get();
  v8::V8::InitializeICUDefaultLocation(argv0);
  g_platform = v8::platform::NewDefaultPlatform();
  v8::V8::InitializePlatform(g_platform.get());
  v8::V8::Initialize();
  return g_platform.get();
}

v8::Platform* Platform() {
  return g_platform.get();
}

void ShutdownV8() {
  if (!g_platform)
    return;
  v8::V8::Dispose();
  v8::V8::DisposePlatform();
  g_platform.reset();
}

v8::Isolate* NewIsolate(const v8::Isolate::CreateParams& params) {
  return v8::Isolate::New(params);
}

void DisposeIsolate(v8::Isolate* isolate) {
  v8::platform::NotifyIsolateShutdown(g_platform.get(), isolate);
  isolate->Dispose();
}

v8::Isolate* AllocateIsolate() {
  return v8::Isolate::Allocate();
}

void ForgetIsolate(v8::Isolate* isolate) {
  v8::platform::NotifyIsolateShutdown(g_platform.get(), isolate);
}

bool PumpMessageLoop(v8::Isolate* isolate) {
  return v8::platform::PumpMessageLoop(g_platform.get(), isolate);
}

const char* ProviderName() {
  return "libnode108";
}

}  // namespace host
}  // namespace asyncctx
