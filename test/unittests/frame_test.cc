// Copyright 2026 the asyncctx authors. All rights reserved.

#include "test/unittests/v8_fixture.h"

namespace asyncctx {
namespace test {
namespace {

using FrameTest = V8Test;

TEST_F(FrameTest, PlaceholderBuilds) {
  EXPECT_EQ(RunString("typeof AsyncResource"), "function");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
