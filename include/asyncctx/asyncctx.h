// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx: Node.js-style async context (AsyncLocalStorage, AsyncResource,
// async_hooks, queueMicrotask) and TC39 AsyncContext for any V8 embedder.
//
// This umbrella header includes the whole public API:
//   runtime.h         Runtime: per-isolate state, Install() into a context
//   async_resource.h  AsyncResource: host-originated async work
//   callback_scope.h  CallbackScope, MakeCallback: run host callbacks
//   context_key.h     ContextKey: read and write context values from C++
//   context_frame.h   ContextFrame: carry context without an async resource
//   errors.h          Node.js-compatible errors for host bindings
//   module.h          node:async_hooks as a module for ESM/CommonJS hosts
//   snapshot.h        ExternalReferences() for v8::SnapshotCreator
//   export.h          ASYNCCTX_EXPORT: what libasyncctx.so exports
//   version.h         library version
// testing.h (RuntimeTesting: introspection for tests and benchmarks) is not
// included: include it where it is used.

#ifndef ASYNCCTX_ASYNCCTX_H_
#define ASYNCCTX_ASYNCCTX_H_

#include "asyncctx/async_resource.h"
#include "asyncctx/callback_scope.h"
#include "asyncctx/context_frame.h"
#include "asyncctx/context_key.h"
#include "asyncctx/errors.h"
#include "asyncctx/module.h"
#include "asyncctx/runtime.h"
#include "asyncctx/snapshot.h"
#include "asyncctx/version.h"

#endif  // ASYNCCTX_ASYNCCTX_H_
