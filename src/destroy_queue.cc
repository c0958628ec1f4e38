// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/destroy_queue.h"

namespace asyncctx {
namespace internal {

void DestroyQueue::TakeInto(std::vector<double>* batch) {
  batch->clear();
  batch->swap(ids_);
}

}  // namespace internal
}  // namespace asyncctx
