// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The public Node.js-compatible errors of include/asyncctx/errors.h: the
// class, `code` and message of each kind, and ThrowInvalidArgType's wording.

#include <string>

#include "asyncctx/errors.h"
#include "test/unittests/v8_fixture.h"
#include "v8-exception.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace test {
namespace {

struct ErrorKind {
  ErrorType type;
  const char* constructor;  // the JavaScript class the error must be
};

class MakeNodeErrorTest : public V8Test,
                          public ::testing::WithParamInterface<ErrorKind> {};

TEST_P(MakeNodeErrorTest, HasTheClassCodeAndMessage) {
  v8::Local<v8::Object> error;
  ASSERT_TRUE(
      MakeNodeError(context(), GetParam().type, "ERR_TEST_CODE", "the message")
          .ToLocal(&error));
  context()
      ->Global()
      ->Set(context(), v8::String::NewFromUtf8Literal(isolate(), "error"),
            error)
      .Check();
  const std::string constructor = GetParam().constructor;
  EXPECT_EQ(RunString("Object.getPrototypeOf(error) === " + constructor +
                      ".prototype && error instanceof Error"),
            "true");
  EXPECT_EQ(RunString("[error.name, error.code, error.message].join('|')"),
            constructor + "|ERR_TEST_CODE|the message");
  // `code` is an own property, as on Node's errors.
  EXPECT_EQ(RunString("Object.hasOwn(error, 'code')"), "true");
  EXPECT_EQ(RunString("typeof error.stack"), "string");
}

INSTANTIATE_TEST_SUITE_P(
    Kinds,
    MakeNodeErrorTest,
    ::testing::Values(ErrorKind{ErrorType::kError, "Error"},
                      ErrorKind{ErrorType::kTypeError, "TypeError"},
                      ErrorKind{ErrorType::kRangeError, "RangeError"}),
    [](const ::testing::TestParamInfo<ErrorKind>& info) {
      return std::string(info.param.constructor);
    });

using ThrowInvalidArgTypeTest = V8Test;

TEST_F(ThrowInvalidArgTypeTest, ThrowsNodesTypeError) {
  v8::TryCatch try_catch(isolate());
  ThrowInvalidArgType(context(), "callback", "function",
                      v8::Number::New(isolate(), 1));
  ASSERT_TRUE(try_catch.HasCaught());
  context()
      ->Global()
      ->Set(context(), v8::String::NewFromUtf8Literal(isolate(), "error"),
            try_catch.Exception())
      .Check();
  try_catch.Reset();
  EXPECT_EQ(RunString("[error instanceof TypeError, error.code, "
                      "error.message].join('|')"),
            "true|ERR_INVALID_ARG_TYPE|The \"callback\" argument must be of "
            "type function. Received type number (1)");
}

}  // namespace
}  // namespace test
}  // namespace asyncctx
