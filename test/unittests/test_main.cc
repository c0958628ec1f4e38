// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Initializes V8 once for the whole test binary.

#include <memory>

#include "gtest/gtest.h"
#include "libplatform/libplatform.h"
#include "test/unittests/v8_fixture.h"
#include "v8-initialization.h"

namespace asyncctx {
namespace test {

namespace {
std::unique_ptr<v8::Platform> g_platform;
}  // namespace

v8::Platform* TestPlatform() {
  return g_platform.get();
}

}  // namespace test
}  // namespace asyncctx

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // gc() is used by memory tests; RequestGarbageCollectionForTesting needs
  // --expose-gc too.
  v8::V8::SetFlagsFromString("--expose-gc");
  asyncctx::test::g_platform = v8::platform::NewDefaultPlatform();
  v8::V8::InitializePlatform(asyncctx::test::g_platform.get());
  v8::V8::Initialize();
  int result = RUN_ALL_TESTS();
  v8::V8::Dispose();
  v8::V8::DisposePlatform();
  return result;
}
