// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The shell's command line:
//
//   asyncctx_shell [--expose-gc] [--module] [--v8-flags=FLAGS] [--help]
//                  [--version] [--] file.js ...
//
// Flags may appear anywhere before `--`; everything else is a file to run.

#ifndef TOOLS_SHELL_FLAGS_H_
#define TOOLS_SHELL_FLAGS_H_

#include <cstdio>
#include <string>
#include <vector>

namespace asyncctx {
namespace shell {

struct Flags {
  bool help = false;
  bool version = false;
  // Install `benchNatives` (tools/shell/bench_natives.h).
  bool bench_natives = false;
  // Run every file as an ES module (files ending in .mjs always are).
  bool module = false;
  // Flags for v8::V8::SetFlagsFromString, space-separated; --expose-gc adds
  // its V8 flag here.
  std::string v8_flags;
  std::vector<std::string> files;
};

// Fills `flags` from argv. Returns false with `error` set for an unknown or
// malformed flag.
bool ParseFlags(int argc,
                const char* const* argv,
                Flags* flags,
                std::string* error);

void PrintUsage(FILE* stream);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_FLAGS_H_
