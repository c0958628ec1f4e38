// Copyright 2026 the asyncctx authors. All rights reserved.
//
// ASYNCCTX_EXPORT: what libasyncctx.so exports.

#ifndef ASYNCCTX_EXPORT_H_
#define ASYNCCTX_EXPORT_H_

// Marks a public class or function as exported from the shared library. The
// library is compiled with -fvisibility=hidden, so only declarations marked
// with this macro are visible to programs linking libasyncctx.so. It changes
// nothing for the static library.
#define ASYNCCTX_EXPORT __attribute__((visibility("default")))

#endif  // ASYNCCTX_EXPORT_H_
