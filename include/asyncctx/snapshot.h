// Copyright 2026 the asyncctx authors. All rights reserved.
//
// V8 startup snapshots (v8::SnapshotCreator) and asyncctx.
//
// The rule (docs/embedding.md, "Rules for hosts", rule 12): snapshot contexts
// that were never installed, and call Runtime::Install() on the contexts
// restored from the snapshot.
//
//   1. Create the snapshot from contexts in which Install() was never called.
//      Simplest: destroy the snapshotting isolate's Runtime (if it has one)
//      before SnapshotCreator::CreateBlob(); asyncctx then leaves nothing in
//      the isolate and the snapshot needs no references from it. If the
//      Runtime stays alive through CreateBlob(), pass ExternalReferences()
//      (with the host's own references) in the CreateParams of the
//      SnapshotCreator and of every isolate restored from the blob, and
//      install nothing in that isolate (V8 refuses to snapshot while the
//      Runtime holds handles to an installed context, and on V8 >= 12 a
//      dropped installed context can stay alive through the isolate's
//      continuation data).
//   2. Restore: an isolate with CreateParams::snapshot_blob, then
//      Runtime::Create(), then Context::New() or Context::FromSnapshot(),
//      then Runtime::Install() on each context. Functions and objects from
//      the snapshot work with AsyncLocalStorage like any others.
//
// A context installed by a Runtime that is alive cannot be snapshotted: its
// state is the Runtime's (the shared execution stack, the hook fields, the
// pointers in its embedder data), which a snapshot cannot carry. V8 gives
// asyncctx no call before it serializes, so asyncctx cannot stop it with a
// message of its own: V8 aborts inside CreateBlob() ("Unknown external
// reference" without ExternalReferences(), "global handle not serialized"
// with them).
//
// Once its Runtime is destroyed, an installed context is detached (its
// globals throw "asyncctx: the Runtime of this context has been destroyed",
// its typed arrays over the Runtime's memory are detached) and can be
// snapshotted with ExternalReferences(). A copy restored from the blob is
// not installed: its old globals throw that error until Runtime::Install()
// defines new ones.

#ifndef ASYNCCTX_SNAPSHOT_H_
#define ASYNCCTX_SNAPSHOT_H_

#include <cstdint>

#include "asyncctx/export.h"

namespace asyncctx {

// Every native function address asyncctx hands to V8 (the functions of the
// JavaScript layer's bindings, the getter of the installed globals that are
// made at their first read, the microtask that flushes destroy hooks, the
// evaluation steps of node:async_hooks, the Runtime's message listener, which
// lives in V8's heap), null-terminated. The same array on every call; valid
// for the life of the process. Needed when a Runtime is alive at
// SnapshotCreator::CreateBlob(): append its entries (without the terminating
// null) to the external references the host passes to v8::SnapshotCreator
// and to Isolate::CreateParams::external_references of the isolates restored
// from the blob. Without them V8 aborts with "Unknown external reference".
ASYNCCTX_EXPORT const intptr_t* ExternalReferences();

}  // namespace asyncctx

#endif  // ASYNCCTX_SNAPSHOT_H_
