// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The unit tests' precompiled header (test/BUILD.gn, GCC-style: compiled
// once per build configuration and force-included before every source of
// the unittests target). Only headers that every test file reads anyway:
// parsing GoogleTest's and V8's headers is most of a test file's compile
// time. Nothing here may depend on a test file's own macros.

#ifndef TEST_UNITTESTS_PCH_H_
#define TEST_UNITTESTS_PCH_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "gtest/gtest.h"
#include "v8-array-buffer.h"
#include "v8-context.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-platform.h"
#include "v8-primitive.h"
#include "v8-script.h"

#endif  // TEST_UNITTESTS_PCH_H_
