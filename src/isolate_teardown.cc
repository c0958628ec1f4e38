// Copyright 2026 the asyncctx authors. All rights reserved.

#include "src/isolate_teardown.h"

namespace asyncctx {
namespace internal {

class IsolateTeardownWatch::Resource final
    : public v8::String::ExternalOneByteStringResource {
 public:
  Resource(Callback callback, void* data) : callback_(callback), data_(data) {}

  void Disarm() { callback_ = nullptr; }

  const char* data() const override { return kText; }
  size_t length() const override { return sizeof(kText) - 1; }
  // When the string is finalized: collected after Disarm(), or at the
  // heap's teardown.
  void Dispose() override {
    Callback callback = callback_;
    void* data = data_;
    delete this;
    if (callback != nullptr)
      callback(data);
  }

 private:
  static constexpr char kText[] = "asyncctx: isolate teardown watch";
  Callback callback_;
  void* data_;
};

void IsolateTeardownWatch::Start(v8::Isolate* isolate,
                                 Callback callback,
                                 void* data) {
  v8::HandleScope handle_scope(isolate);
  Resource* resource = new Resource(callback, data);
  v8::Local<v8::String> string;
  if (!v8::String::NewExternalOneByte(isolate, resource).ToLocal(&string)) {
    // Only a string too long fails, and V8 then does not take the resource.
    delete resource;
    return;
  }
  isolate_ = isolate;
  resource_ = resource;
  // Message levels 0: V8 calls the listener for no message at all.
  isolate->AddMessageListenerWithErrorLevel(HoldingListener, 0, string);
}

void IsolateTeardownWatch::Cancel() {
  if (resource_ == nullptr)
    return;
  // The string lives on until a GC finalizes it (on the isolate's thread).
  resource_->Disarm();
  resource_ = nullptr;
  isolate_->RemoveMessageListeners(HoldingListener);
}

void IsolateTeardownWatch::HoldingListener(v8::Local<v8::Message>,
                                           v8::Local<v8::Value>) {}

}  // namespace internal
}  // namespace asyncctx
