// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The factories of asyncctx::Runtime (include/asyncctx/runtime.h): checked
// creation of a RuntimeImpl, and the lookup of an isolate's runtime.

#include "asyncctx/runtime.h"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/runtime_impl.h"
#include "src/runtime_registry.h"

namespace asyncctx {

using namespace internal;  // NOLINT: the internals this public class is built
                           // on

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::New(v8::Isolate* isolate,
                                                      RuntimeOptions options) {
  if (isolate == nullptr) {
    return absl::InvalidArgumentError(
        "asyncctx: Runtime::New(): the isolate is null");
  }
  uint32_t slot = options.isolate_data_slot;
  if (slot >= v8::Isolate::GetNumberOfDataSlots()) {
    return absl::InvalidArgumentError(
        absl::StrCat("asyncctx: Runtime::New(): isolate_data_slot ", slot,
                     " is out of range (the isolate has ",
                     v8::Isolate::GetNumberOfDataSlots(), " data slots)"));
  }
  if (RuntimeRegistry::Find(isolate) != nullptr) {
    return absl::AlreadyExistsError(
        "asyncctx: Runtime::New(): this isolate already has a runtime");
  }
  if (isolate->GetData(slot) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("asyncctx: Runtime::New(): isolate data slot ", slot,
                     " is already in use (choose another "
                     "RuntimeOptions::isolate_data_slot)"));
  }
  return std::unique_ptr<Runtime>(
      std::make_unique<RuntimeImpl>(isolate, std::move(options)));
}

std::unique_ptr<Runtime> Runtime::Create(v8::Isolate* isolate,
                                         RuntimeOptions options) {
  absl::StatusOr<std::unique_ptr<Runtime>> runtime =
      New(isolate, std::move(options));
  if (!runtime.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(runtime.status().message()).c_str());
    return nullptr;
  }
  return std::move(runtime).value();
}

Runtime* Runtime::From(v8::Isolate* isolate) {
  return RuntimeRegistry::Find(isolate);
}

Runtime::~Runtime() = default;

}  // namespace asyncctx
