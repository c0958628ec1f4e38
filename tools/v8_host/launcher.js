// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Runs a program built for V8 13.6/14.6 (a native module, see v8_host.h)
// inside this `node` binary:
//
//   node launcher.js <module.node> <argv0> [args...]
//
// The module's main() gets [argv0, args...] and runs on a thread of its own;
// its exit code becomes this process's. Nothing here touches
// process.stdout/stderr, so the program's own writes to fds 1 and 2 are the
// only output (and Node never switches them to non-blocking mode).
'use strict';
const [modulePath, argv0, ...args] = process.argv.slice(2);
const module = { exports: {} };
process.dlopen(module, modulePath);
process.exit(module.exports.main([argv0, ...args]));
