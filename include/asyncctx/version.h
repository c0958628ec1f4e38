// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The asyncctx library version.

#ifndef ASYNCCTX_VERSION_H_
#define ASYNCCTX_VERSION_H_

// Major version: incremented for incompatible API changes (after 1.0).
#define ASYNCCTX_VERSION_MAJOR 0
// Minor version: new features; before 1.0 also incompatible changes.
#define ASYNCCTX_VERSION_MINOR 1
// Patch version: fixes only.
#define ASYNCCTX_VERSION_PATCH 0
// "MAJOR.MINOR.PATCH".
#define ASYNCCTX_VERSION_STRING "0.1.0"

#endif  // ASYNCCTX_VERSION_H_
