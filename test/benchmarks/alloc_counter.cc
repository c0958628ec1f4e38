// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Replaces the global operator new/delete of the benchmark binary to count
// allocations per thread (bench::ThreadAllocations()). The replacement is
// exported from the executable, so calls made inside libnode (libstdc++
// containers in V8) land here too; V8's own malloc-based allocations do not.

#include <cstdint>
#include <cstdlib>
#include <new>

#include "test/benchmarks/bench_env.h"

#define ASYNCCTX_EXPORT __attribute__((visibility("default")))

namespace {

thread_local uint64_t t_allocations = 0;

void* Allocate(std::size_t size) {
  t_allocations++;
  if (size == 0)
    size = 1;
  for (;;) {
    if (void* p = std::malloc(size))
      return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr)
      throw std::bad_alloc();
    handler();
  }
}

void* AllocateAligned(std::size_t size, std::align_val_t align) {
  t_allocations++;
  std::size_t alignment = static_cast<std::size_t>(align);
  if (alignment < sizeof(void*))
    alignment = sizeof(void*);
  // aligned_alloc wants a multiple of the alignment.
  size = (size + alignment - 1) / alignment * alignment;
  if (size == 0)
    size = alignment;
  for (;;) {
    if (void* p = std::aligned_alloc(alignment, size))
      return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr)
      throw std::bad_alloc();
    handler();
  }
}

}  // namespace

namespace asyncctx {
namespace bench {

uint64_t ThreadAllocations() {
  return t_allocations;
}

}  // namespace bench
}  // namespace asyncctx

ASYNCCTX_EXPORT void* operator new(std::size_t size) {
  return Allocate(size);
}
ASYNCCTX_EXPORT void* operator new[](std::size_t size) {
  return Allocate(size);
}
ASYNCCTX_EXPORT void* operator new(std::size_t size,
                                   const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
ASYNCCTX_EXPORT void* operator new[](std::size_t size,
                                     const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
ASYNCCTX_EXPORT void* operator new(std::size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
ASYNCCTX_EXPORT void* operator new[](std::size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
ASYNCCTX_EXPORT void* operator new(std::size_t size,
                                   std::align_val_t align,
                                   const std::nothrow_t&) noexcept {
  try {
    return AllocateAligned(size, align);
  } catch (...) {
    return nullptr;
  }
}
ASYNCCTX_EXPORT void* operator new[](std::size_t size,
                                     std::align_val_t align,
                                     const std::nothrow_t&) noexcept {
  try {
    return AllocateAligned(size, align);
  } catch (...) {
    return nullptr;
  }
}

ASYNCCTX_EXPORT void operator delete(void* p) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete[](void* p) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete[](void* p,
                                       const std::nothrow_t&) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete(void* p,
                                     std::size_t,
                                     std::align_val_t) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete[](void* p,
                                       std::size_t,
                                       std::align_val_t) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete(void* p,
                                     std::align_val_t,
                                     const std::nothrow_t&) noexcept {
  std::free(p);
}
ASYNCCTX_EXPORT void operator delete[](void* p,
                                       std::align_val_t,
                                       const std::nothrow_t&) noexcept {
  std::free(p);
}
