// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/execution_stack.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "gtest/gtest.h"

// Counts every heap allocation made through operator new in this binary.
// All the non-aligned forms are replaced together so that every pointer is
// freed by the allocator that made it (AddressSanitizer checks this).
namespace {
std::atomic<size_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size))
    return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size))
    return p;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}

namespace asyncctx {

using namespace internal;  // NOLINT: tests of the library's internals
namespace {

TEST(ExecutionStackTest, StartsAtTopLevelIds) {
  ExecutionStack stack;
  EXPECT_EQ(stack.depth(), 0u);
  EXPECT_EQ(stack.execution_async_id(), 1);
  EXPECT_EQ(stack.trigger_async_id(), 0);
  EXPECT_EQ(stack.NewAsyncId(), 2);
  EXPECT_EQ(stack.NewAsyncId(), 3);
}

TEST(ExecutionStackTest, PushAndPopRestorePreviousIds) {
  ExecutionStack stack;
  ASSERT_TRUE(stack.Push(5, 1));
  EXPECT_EQ(stack.execution_async_id(), 5);
  EXPECT_EQ(stack.trigger_async_id(), 1);
  ASSERT_TRUE(stack.Push(7, 5));
  EXPECT_EQ(stack.depth(), 2u);
  EXPECT_TRUE(stack.Pop(7));
  EXPECT_EQ(stack.execution_async_id(), 5);
  EXPECT_TRUE(stack.Pop(5));
  EXPECT_EQ(stack.execution_async_id(), 1);
  EXPECT_EQ(stack.trigger_async_id(), 0);
  EXPECT_FALSE(stack.Pop(1));
}

TEST(ExecutionStackTest, UnwindToRestoresTheIdsOfThatDepth) {
  ExecutionStack stack;
  stack.Push(10, 1);
  stack.Push(11, 10);
  stack.Push(12, 11);
  stack.UnwindTo(1);
  EXPECT_EQ(stack.depth(), 1u);
  EXPECT_EQ(stack.execution_async_id(), 10);
  EXPECT_EQ(stack.trigger_async_id(), 1);
  stack.UnwindTo(0);
  EXPECT_EQ(stack.execution_async_id(), 1);
}

TEST(ExecutionStackTest, PushAndPopNeverAllocateAtAnyDepth) {
  ExecutionStack stack;
  for (size_t depth : {0, 1, 15, 16, 17, 255, 256, 257, 1000}) {
    for (size_t i = 0; i < depth; i++)
      stack.Push(100 + i, 99 + i);
    size_t before = g_allocations.load();
    for (int i = 0; i < 1000000; i++) {
      stack.Push(1e9 + i, 1);
      stack.Pop(1e9 + i);
    }
    EXPECT_EQ(g_allocations.load() - before, 0u) << "at depth " << depth;
    stack.UnwindTo(0);
  }
}

TEST(ExecutionStackTest, DeepStackKeepsItsStorage) {
  ExecutionStack stack;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 5000; i++)
      ASSERT_TRUE(stack.Push(10 + i, 9 + i));
    size_t before = g_allocations.load();
    for (int i = 4999; i >= 0; i--)
      ASSERT_TRUE(stack.Pop(10 + i));
    EXPECT_EQ(g_allocations.load() - before, 0u);
  }
}

TEST(ExecutionStackTest, FullStackRefusesPush) {
  ExecutionStack stack;
  for (size_t i = 0; i < ExecutionStack::kCapacity; i++) {
    ASSERT_TRUE(stack.Push(2 + i, 1));
  }
  EXPECT_FALSE(stack.Push(1e12, 1));
  EXPECT_EQ(stack.depth(), ExecutionStack::kCapacity);
}

TEST(ExecutionStackDeathTest, MismatchedPopIsFatalAndNamesBothIds) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ExecutionStack stack;
        stack.Push(42, 1);
        stack.Pop(43);
      },
      "popping async id 43 but the current execution async id is 42");
}

}  // namespace
}  // namespace asyncctx
