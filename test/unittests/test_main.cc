// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Initializes V8 once for the whole test binary.

#include <memory>

#include "gtest/gtest.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-initialization.h"

namespace asyncctx {
namespace test {

v8::Platform* TestPlatform() {
  return host::Platform();
}

}  // namespace test
}  // namespace asyncctx

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // gc() is used by memory tests; RequestGarbageCollectionForTesting needs
  // --expose-gc too.
  v8::V8::SetFlagsFromString("--expose-gc");
  // V8 and its platform come from the host adapter (tools/v8_host).
  asyncctx::host::InitializeV8(argv[0]);
  int result = RUN_ALL_TESTS();
  asyncctx::host::ShutdownV8();
  return result;
}
