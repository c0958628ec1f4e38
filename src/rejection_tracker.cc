// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/rejection_tracker.h"

#include <utility>

#include "src/isolate_teardown.h"
#include "src/v8_compat.h"

namespace asyncctx {
namespace internal {

void RejectionTracker::OnRejectWithNoHandler(v8::Local<v8::Promise> promise,
                                             v8::Local<v8::Value> reason) {
  v8::Local<v8::Context> context = isolate_->GetCurrentContext();
  auto entry = std::make_unique<Entry>();
  entry->context.Reset(isolate_, context);
  entry->promise.Reset(isolate_, promise);
  entry->reason.Reset(isolate_, reason);
  entry->frame.Reset(isolate_, compat::GetContinuationData(isolate_, context));
  by_hash_[promise->GetIdentityHash()].push_back(entry.get());
  entries_.push_back(std::move(entry));
  live_++;
}

void RejectionTracker::OnHandlerAdded(v8::Local<v8::Promise> promise) {
  auto it = by_hash_.find(promise->GetIdentityHash());
  if (it == by_hash_.end())
    return;
  auto& bucket = it->second;
  for (size_t i = 0; i < bucket.size(); i++) {
    Entry* entry = bucket[i];
    comparisons_++;
    if (entry->promise.Get(isolate_) != promise)
      continue;
    entry->promise.Reset();
    entry->reason.Reset();
    entry->frame.Reset();
    entry->context.Reset();
    live_--;
    bucket.erase(bucket.begin() + i);
    if (bucket.empty())
      by_hash_.erase(it);
    return;
  }
}

void RejectionTracker::Process(const Handler& handler) {
  if (entries_.empty())
    return;
  std::vector<std::unique_ptr<Entry>> entries;
  entries.swap(entries_);
  by_hash_.clear();
  live_ = 0;
  for (auto& entry : entries) {
    if (entry->promise.IsEmpty())
      continue;
    v8::HandleScope handle_scope(isolate_);
    v8::Local<v8::Context> context = entry->context.Get(isolate_);
    v8::Context::Scope context_scope(context);
    v8::Local<v8::Value> previous =
        compat::GetContinuationData(isolate_, context);
    compat::SetContinuationData(isolate_, context, entry->frame.Get(isolate_));
    handler(context, entry->promise.Get(isolate_), entry->reason.Get(isolate_));
    compat::SetContinuationData(isolate_, context, previous);
  }
}

void RejectionTracker::Clear() {
  entries_.clear();
  by_hash_.clear();
  live_ = 0;
}

void RejectionTracker::Abandon() {
  for (const std::unique_ptr<Entry>& entry : entries_) {
    AbandonGlobal(&entry->context);
    AbandonGlobal(&entry->promise);
    AbandonGlobal(&entry->reason);
    AbandonGlobal(&entry->frame);
  }
  Clear();
}

}  // namespace internal
}  // namespace asyncctx
