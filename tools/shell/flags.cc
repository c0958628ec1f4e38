// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/flags.h"

#include <cstring>

namespace asyncctx {
namespace shell {
namespace {

void AddV8Flags(Flags* flags, const std::string& more) {
  if (more.empty())
    return;
  if (!flags->v8_flags.empty())
    flags->v8_flags += ' ';
  flags->v8_flags += more;
}

}  // namespace

bool ParseFlags(int argc,
                const char* const* argv,
                Flags* flags,
                std::string* error) {
  static const char kV8Flags[] = "--v8-flags=";
  bool only_files = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_files || arg.size() < 2 || arg[0] != '-') {
      flags->files.push_back(arg);
    } else if (arg == "--") {
      only_files = true;
    } else if (arg == "--help" || arg == "-h") {
      flags->help = true;
    } else if (arg == "--version" || arg == "-v") {
      flags->version = true;
    } else if (arg == "--module") {
      flags->module = true;
    } else if (arg == "--bench-natives") {
      flags->bench_natives = true;
    } else if (arg == "--expose-gc" || arg == "--expose_gc") {
      AddV8Flags(flags, "--expose-gc");
    } else if (arg.compare(0, strlen(kV8Flags), kV8Flags) == 0) {
      AddV8Flags(flags, arg.substr(strlen(kV8Flags)));
    } else {
      *error = "unknown flag: " + arg;
      return false;
    }
  }
  return true;
}

void PrintUsage(FILE* stream) {
  fputs(
      "Usage: asyncctx_shell [options] [--] file.js [file.js ...]\n"
      "\n"
      "Runs the files in order in one context, then runs the event loop\n"
      "until no work is left. Files ending in .mjs are ES modules, the\n"
      "others classic scripts. Exits with 1 on an uncaught exception or\n"
      "unhandled rejection, 13 on an unsettled top-level await, 2 on bad\n"
      "usage.\n"
      "\n"
      "Options:\n"
      "  --expose-gc         define gc() to force a garbage collection\n"
      "  --module            run every file as an ES module\n"
      "  --v8-flags=FLAGS    pass FLAGS (space-separated) to V8\n"
      "  --bench-natives     define benchNatives, the benchmarks' native "
      "floors\n"
      "  --help              print this help and exit\n"
      "  --version           print the shell's and V8's versions and exit\n",
      stream);
}

}  // namespace shell
}  // namespace asyncctx
