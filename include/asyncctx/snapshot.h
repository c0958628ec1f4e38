// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8 startup snapshots (v8::SnapshotCreator) and asyncctx.
//
// The rule (docs/embedding.md, "Rules for hosts"): snapshot contexts WITHOUT
// asyncctx, and call Runtime::Install() after restoring them.
//
//   1. Create the snapshot from contexts in which Install() was never called.
//      The snapshotting isolate may have a Runtime and other installed
//      contexts; pass ExternalReferences() (with the host's own references)
//      to v8::SnapshotCreator / CreateParams::external_references.
//   2. Restore: an isolate with CreateParams::snapshot_blob (and the same
//      external references), Runtime::Create(), then Context::New() or
//      Context::FromSnapshot(), then Runtime::Install() on each context.
//
// An installed context cannot be snapshotted: its state lives in the Runtime
// (the execution stack, the per-context hook state, the pointers in its
// embedder data), which a snapshot cannot carry. A context restored from such
// a snapshot is never taken for an installed one (IsInstalled() is false,
// the functions it kept from the snapshot throw "the Runtime of this context
// has been destroyed"), and Install() on it fails with a clear error.

#ifndef ASYNCCTX_SNAPSHOT_H_
#define ASYNCCTX_SNAPSHOT_H_

#include <cstdint>

#include "asyncctx/export.h"

namespace asyncctx {

// Every native function address asyncctx hands to V8 (the functions of the
// JavaScript layer's bindings, the microtask that flushes destroy hooks, the
// evaluation steps of node:async_hooks), null-terminated. The same array on
// every call; valid for the life of the process. Append its entries (without
// the terminating null) to the external references the host passes to
// v8::SnapshotCreator and to Isolate::CreateParams::external_references of
// the isolates restored from the snapshot.
ASYNCCTX_EXPORT const intptr_t* ExternalReferences();

}  // namespace asyncctx

#endif  // ASYNCCTX_SNAPSHOT_H_
