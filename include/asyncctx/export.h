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

// For scope classes (as V8_NODISCARD in V8's headers): a scope created
// without a name is destroyed at once, which compilers then warn about.
// Written before the class name: `class ASYNCCTX_NODISCARD_EXPORT X`.
#define ASYNCCTX_NODISCARD_EXPORT [[nodiscard, gnu::visibility("default")]]

#endif  // ASYNCCTX_EXPORT_H_
