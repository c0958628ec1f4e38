// Copyright 2026 the asyncctx authors. All rights reserved.
//
// asyncctx_shell: a d8-style V8 host with a Node.js-style event loop, and
// the reference integration of asyncctx into a host. See shell.h for what a
// run does and flags.h for the command line.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "asyncctx/version.h"
#include "tools/shell/flags.h"
#include "tools/shell/performance.h"
#include "tools/shell/script.h"
#include "tools/shell/shell.h"
#include "tools/v8_host/v8_host.h"
#include "v8-array-buffer.h"
#include "v8-initialization.h"
#include "v8-isolate.h"
#include "v8-microtask.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char* argv[]) {
  // The origin of performance.now(): as close to process start as we get.
  const asyncctx::shell::TimeOrigin origin;

  asyncctx::shell::Flags flags;
  std::string error;
  if (!asyncctx::shell::ParseFlags(argc, argv, &flags, &error)) {
    fprintf(stderr, "asyncctx_shell: %s\n\n", error.c_str());
    asyncctx::shell::PrintUsage(stderr);
    return kUsageError;
  }
  if (flags.help) {
    asyncctx::shell::PrintUsage(stdout);
    return 0;
  }
  if (flags.version) {
    printf("asyncctx_shell %s\nV8 %s\n", ASYNCCTX_VERSION_STRING,
           v8::V8::GetVersion());
    return 0;
  }
  if (flags.files.empty()) {
    fputs("asyncctx_shell: no script file given\n\n", stderr);
    asyncctx::shell::PrintUsage(stderr);
    return kUsageError;
  }
  // Read every file before running any, so that a typo in the last name does
  // not run the first files.
  std::vector<asyncctx::shell::SourceFile> files;
  for (const std::string& name : flags.files) {
    asyncctx::shell::SourceFile file{name, std::string()};
    file.is_module =
        flags.module ||
        (name.size() > 4 && name.compare(name.size() - 4, 4, ".mjs") == 0);
    if (!asyncctx::shell::ReadFile(name, &file.contents)) {
      fprintf(stderr, "asyncctx_shell: cannot read file '%s'\n\n",
              name.c_str());
      asyncctx::shell::PrintUsage(stderr);
      return kUsageError;
    }
    files.push_back(std::move(file));
  }

  if (!flags.v8_flags.empty())
    v8::V8::SetFlagsFromString(flags.v8_flags.c_str());
  // V8 and its platform come from the host adapter (tools/v8_host).
  v8::Platform* platform = asyncctx::host::InitializeV8(argv[0]);

  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator(
      v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator.get();
  v8::Isolate* isolate = asyncctx::host::NewIsolate(params);
  // asyncctx runs checkpoints itself: after each CallbackScope and each
  // script (Runtime::RunMicrotasks).
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);

  int exit_code;
  {
    v8::Isolate::Scope isolate_scope(isolate);
    asyncctx::shell::Shell shell(isolate, platform, &origin);
    shell.set_bench_natives(flags.bench_natives);
    exit_code = shell.Initialize() ? shell.Run(files) : 1;
    // ~Shell disposes the runtime before the isolate goes.
  }
  asyncctx::host::DisposeIsolate(isolate);
  asyncctx::host::ShutdownV8();
  return exit_code;
}
