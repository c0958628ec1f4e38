// Copyright 2026 the asyncctx authors. All rights reserved.
//
// The structure follows Node.js's lib/internal/util/inspect.js (formatValue,
// formatRaw, formatProperty, reduceToSingleString, groupArrayElements) so
// that the two can be compared function by function; the names in comments
// are Node's.

#include "tools/shell/inspect/inspect.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/shell/bindings.h"
#include "tools/shell/inspect/inspect_primitives.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-array-buffer.h"
#include "v8-container.h"
#include "v8-date.h"
#include "v8-exception.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-object.h"
#include "v8-persistent-handle.h"
#include "v8-primitive-object.h"
#include "v8-primitive.h"
#include "v8-promise.h"
#include "v8-proxy.h"
#include "v8-regexp.h"
#include "v8-typed-array.h"

namespace asyncctx {
namespace shell {
namespace {

// Node's defaults for console.log.
constexpr int kBreakLength = 80;
constexpr int kCompact = 3;
constexpr uint32_t kMaxArrayLength = 100;
constexpr int kMaxStringLength = 10000;
constexpr int kMinLineWidth = 16;

// Node's kObjectType / kArrayExtrasType: whether entries are `key: value`
// pairs or bare array elements (which may be grouped in columns).
enum class Extras { kObject, kArray };

std::string Spaces(int count) {
  return std::string(static_cast<size_t>(std::max(count, 0)), ' ');
}

bool IsIdentifier(const std::string& key) {
  if (key.empty())
    return false;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0))
      return false;
  }
  return true;
}

// "3 more items", "1 more byte".
std::string Count(uint64_t count, const char* noun) {
  return absl::StrCat(count, " ", noun, count == 1 ? "" : "s");
}

std::string MoreItems(uint64_t remaining) {
  return absl::StrCat("... ", Count(remaining, "more item"));
}

// Node's getPrefix: `Foo `, `Map(2) `, `[Object: null prototype] `.
std::string GetPrefix(const std::optional<std::string>& constructor,
                      const std::string& tag,
                      const std::string& fallback,
                      const std::string& size = "") {
  if (!constructor) {
    if (!tag.empty() && fallback != tag)
      return "[" + fallback + size + ": null prototype] [" + tag + "] ";
    return "[" + fallback + size + ": null prototype] ";
  }
  if (!tag.empty() && *constructor != tag)
    return *constructor + size + " [" + tag + "] ";
  return *constructor + size + " ";
}

class Inspector {
 public:
  Inspector(v8::Local<v8::Context> context, const InspectOptions& options)
      : isolate_(host_compat::IsolateOf(context)),
        context_(context),
        depth_(options.depth),
        show_hidden_(options.show_hidden) {}

  // Node's formatValue. Returns false when JavaScript threw.
  bool FormatValue(v8::Local<v8::Value> value,
                   int recurse_times,
                   std::string* out);

 private:
  // What Node's formatRaw works out about an object before formatting its
  // entries: which entries, the braces, the base (a function's, a date's or
  // an error's text), and the keys of its own properties to list.
  struct Layout {
    enum class Kind {
      kNone,
      kArray,
      kTypedArray,
      kSet,
      kMap,
      kIterator,
      kArrayBuffer,
      kPromise,
      kWeakCollection,
    };
    Kind kind = Kind::kNone;
    std::vector<v8::Local<v8::Value>> keys;
    std::string base;
    std::string open = "{";
    std::string close = "}";
    Extras extras = Extras::kObject;
    v8::Local<v8::Array> iterator_entries;
    bool iterator_key_value = false;
    // The whole text, when the object has nothing more to show (`[]`,
    // `Map(0) {}`, a function or date without own properties).
    std::optional<std::string> complete;
  };

  bool FormatPrimitive(v8::Local<v8::Value> value, std::string* out);
  // Node's formatRaw: Describe(), then the entries and properties.
  bool FormatRaw(v8::Local<v8::Object> object,
                 int recurse_times,
                 std::string* out);
  bool Describe(v8::Local<v8::Object> object,
                const std::optional<std::string>& constructor,
                const std::string& tag,
                Layout* layout);
  bool DescribeArray(v8::Local<v8::Array> array,
                     const std::optional<std::string>& constructor,
                     const std::string& tag,
                     Layout* layout);
  bool DescribeSetOrMap(v8::Local<v8::Object> object,
                        const std::optional<std::string>& constructor,
                        const std::string& tag,
                        Layout* layout);
  bool DescribeTypedArray(v8::Local<v8::TypedArray> array,
                          const std::optional<std::string>& constructor,
                          const std::string& tag,
                          Layout* layout);
  bool DescribeIterator(v8::Local<v8::Object> iterator, Layout* layout);
  // Objects shown as a base text (functions, regexps, dates, errors, boxed
  // primitives); *described is false for the others.
  bool DescribeWithBase(v8::Local<v8::Object> object,
                        const std::optional<std::string>& constructor,
                        const std::string& tag,
                        Layout* layout,
                        bool* described);
  // Objects shown in braces: plain objects, buffers, promises, weak
  // collections.
  void DescribeBraced(v8::Local<v8::Object> object,
                      const std::optional<std::string>& constructor,
                      const std::string& tag,
                      Layout* layout);
  bool FormatEntriesOf(v8::Local<v8::Object> object,
                       const Layout& layout,
                       int recurse_times,
                       std::vector<std::string>* output);
  bool FormatProperty(v8::Local<v8::Object> object,
                      v8::Local<v8::Value> key,
                      int recurse_times,
                      Extras extras,
                      std::string* out);
  // Node's formatError: the (improved) stack, and which keys to list.
  bool FormatError(v8::Local<v8::Object> error,
                   const std::optional<std::string>& constructor,
                   const std::string& tag,
                   std::vector<v8::Local<v8::Value>>* keys,
                   std::string* out);
  // The error's name, message and stack (or its toString() without one).
  bool ReadError(v8::Local<v8::Object> error,
                 std::string* name,
                 std::string* message,
                 std::string* stack);
  // Node's removeDuplicateErrorKeys: an own name/message/stack that the
  // stack already shows is not listed again.
  bool RemoveDuplicateErrorKeys(v8::Local<v8::Object> error,
                                const std::string& stack,
                                std::vector<v8::Local<v8::Value>>* keys);
  // A non-enumerable `cause` and AggregateError's `errors` are listed too.
  bool AddHiddenErrorKeys(v8::Local<v8::Object> error,
                          std::vector<v8::Local<v8::Value>>* keys);
  // Brackets a stack without frames and indents it to the current level.
  std::string FinishErrorStack(std::string stack,
                               const std::string& message) const;
  bool FunctionBase(v8::Local<v8::Function> function,
                    const std::optional<std::string>& constructor,
                    const std::string& tag,
                    std::string* out);
  std::string BoxedBase(v8::Local<v8::Object> object,
                        const std::optional<std::string>& constructor,
                        const std::string& tag,
                        std::vector<v8::Local<v8::Value>>* keys);

  // Entry formatters (Node's formatArray, formatSet, ...).
  bool FormatArray(v8::Local<v8::Array> array,
                   int recurse_times,
                   std::vector<std::string>* output);
  bool FormatSparseArray(v8::Local<v8::Array> array,
                         int recurse_times,
                         uint32_t index,
                         std::vector<std::string>* output);
  bool FormatTypedArray(v8::Local<v8::TypedArray> array,
                        std::vector<std::string>* output);
  bool FormatEntries(v8::Local<v8::Array> entries,
                     bool key_value,
                     const char* separator,
                     int recurse_times,
                     std::vector<std::string>* output);
  bool FormatPromise(v8::Local<v8::Promise> promise,
                     int recurse_times,
                     std::vector<std::string>* output);
  void FormatArrayBuffer(v8::Local<v8::ArrayBuffer> buffer,
                         std::vector<std::string>* output);

  bool GetConstructorName(v8::Local<v8::Object> object,
                          std::optional<std::string>* out);
  bool GetToStringTag(v8::Local<v8::Object> object, std::string* out);
  bool GetKeys(v8::Local<v8::Object> object,
               v8::IndexFilter index_filter,
               std::vector<v8::Local<v8::Value>>* keys);
  // JavaScript's String(value), which unlike ToString() accepts symbols.
  bool ToDisplayString(v8::Local<v8::Value> value, std::string* out);
  bool GetProperty(v8::Local<v8::Object> object,
                   const char* name,
                   v8::Local<v8::Value>* out);
  int CircularIndex(v8::Local<v8::Object> object, bool assign);

  std::string ReduceToSingleString(std::vector<std::string> output,
                                   const std::string& base,
                                   const std::string& open,
                                   const std::string& close,
                                   Extras extras,
                                   int recurse_times,
                                   v8::Local<v8::Object> value);
  bool IsBelowBreakLength(const std::vector<std::string>& output,
                          int start,
                          const std::string& base) const;
  std::vector<std::string> GroupArrayElements(
      const std::vector<std::string>& output,
      v8::Local<v8::Object> value);

  v8::Isolate* isolate_;
  v8::Local<v8::Context> context_;
  int depth_;
  bool show_hidden_;
  // Node's ctx.seen: the objects being formatted, outermost first.
  std::vector<v8::Local<v8::Object>> seen_;
  // Node's ctx.circular: objects referenced from inside themselves, numbered
  // in order of discovery. Globals, because they outlive the handle scope in
  // which they were found.
  std::vector<v8::Global<v8::Object>> circular_;
  int indentation_ = 0;
  int current_depth_ = 0;
};

bool Inspector::GetProperty(v8::Local<v8::Object> object,
                            const char* name,
                            v8::Local<v8::Value>* out) {
  return object->Get(context_, ToV8String(isolate_, name)).ToLocal(out);
}

bool Inspector::ToDisplayString(v8::Local<v8::Value> value, std::string* out) {
  if (value->IsSymbol()) {
    *out = SymbolToString(isolate_, value.As<v8::Symbol>());
    return true;
  }
  v8::Local<v8::String> string;
  if (!value->ToString(context_).ToLocal(&string))
    return false;
  *out = ToUtf8(isolate_, string);
  return true;
}

int Inspector::CircularIndex(v8::Local<v8::Object> object, bool assign) {
  for (size_t i = 0; i < circular_.size(); ++i) {
    if (circular_[i] == object)
      return static_cast<int>(i) + 1;
  }
  if (!assign)
    return 0;
  circular_.emplace_back(isolate_, object);
  return static_cast<int>(circular_.size());
}

bool Inspector::FormatValue(v8::Local<v8::Value> value,
                            int recurse_times,
                            std::string* out) {
  if (!value->IsObject())
    return FormatPrimitive(value, out);
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Object> object = value.As<v8::Object>();
  while (object->IsProxy()) {
    v8::Local<v8::Value> target = object.As<v8::Proxy>()->GetTarget();
    if (!target->IsObject()) {
      *out = "<Revoked Proxy>";
      return true;
    }
    object = target.As<v8::Object>();
  }
  for (const v8::Local<v8::Object>& seen : seen_) {
    if (seen == object) {
      *out = absl::StrCat("[Circular *", CircularIndex(object, true), "]");
      return true;
    }
  }
  return FormatRaw(object, recurse_times, out);
}

bool Inspector::FormatPrimitive(v8::Local<v8::Value> value, std::string* out) {
  if (value->IsString()) {
    v8::Local<v8::String> string = value.As<v8::String>();
    std::u16string text = ToUtf16(isolate_, string);
    std::string trailer;
    if (text.size() > static_cast<size_t>(kMaxStringLength)) {
      size_t remaining = text.size() - kMaxStringLength;
      text.resize(kMaxStringLength);
      trailer = absl::StrCat("... ", Count(remaining, "more character"));
    }
    // Long multi-line strings are split after each newline, one quoted piece
    // per line joined with `+`.
    int length = static_cast<int>(text.size());
    if (length > kMinLineWidth && length > kBreakLength - indentation_ - 4 &&
        text.find(u'\n') != std::u16string::npos) {
      std::vector<std::string> lines;
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find(u'\n', start);
        end = end == std::u16string::npos ? text.size() : end + 1;
        lines.push_back(QuoteString(text.substr(start, end - start)));
        start = end;
      }
      *out = absl::StrCat(
          absl::StrJoin(lines, absl::StrCat(" +\n", Spaces(indentation_ + 2))),
          trailer);
      return true;
    }
    *out = QuoteString(text) + trailer;
    return true;
  }
  if (value->IsNumber()) {
    *out = FormatNumber(context_, value.As<v8::Number>()->Value());
    return true;
  }
  if (value->IsBigInt()) {
    if (!ToDisplayString(value, out))
      return false;
    *out += "n";
    return true;
  }
  if (value->IsSymbol()) {
    *out = SymbolToString(isolate_, value.As<v8::Symbol>());
    return true;
  }
  if (value->IsUndefined()) {
    *out = "undefined";
    return true;
  }
  if (value->IsNull()) {
    *out = "null";
    return true;
  }
  if (value->IsBoolean()) {
    *out = value->IsTrue() ? "true" : "false";
    return true;
  }
  return ToDisplayString(value, out);
}

bool Inspector::GetConstructorName(v8::Local<v8::Object> object,
                                   std::optional<std::string>* out) {
  v8::Local<v8::String> constructor_key = ToV8String(isolate_, "constructor");
  v8::Local<v8::Value> current = object;
  v8::Local<v8::Value> first_proto;
  while (current->IsObject()) {
    v8::Local<v8::Object> holder = current.As<v8::Object>();
    // Looking into a Proxy would run its traps.
    if (holder->IsProxy())
      break;
    v8::Maybe<bool> has = holder->HasOwnProperty(context_, constructor_key);
    if (has.IsNothing())
      return false;
    if (has.FromJust()) {
      v8::Local<v8::Value> descriptor;
      if (!holder->GetOwnPropertyDescriptor(context_, constructor_key)
               .ToLocal(&descriptor)) {
        return false;
      }
      v8::Local<v8::Value> constructor;
      if (descriptor->IsObject() &&
          !GetProperty(descriptor.As<v8::Object>(), "value", &constructor)) {
        return false;
      }
      if (!constructor.IsEmpty() && constructor->IsFunction()) {
        std::string name =
            ToUtf8(isolate_, constructor.As<v8::Function>()->GetName());
        if (!name.empty()) {
          v8::Maybe<bool> instance =
              object->InstanceOf(context_, constructor.As<v8::Function>());
          if (instance.IsNothing())
            return false;
          if (instance.FromJust()) {
            *out = name;
            return true;
          }
        }
      }
    }
    current = host_compat::GetPrototype(holder);
    if (first_proto.IsEmpty())
      first_proto = current;
  }
  if (!first_proto.IsEmpty() && first_proto->IsNull()) {
    *out = std::nullopt;
    return true;
  }
  *out = ToUtf8(isolate_, object->GetConstructorName());
  return true;
}

bool Inspector::GetToStringTag(v8::Local<v8::Object> object, std::string* out) {
  out->clear();
  v8::Local<v8::Symbol> tag_key = v8::Symbol::GetToStringTag(isolate_);
  v8::Local<v8::Value> tag;
  if (!object->Get(context_, tag_key).ToLocal(&tag))
    return false;
  if (!tag->IsString() || tag.As<v8::String>()->Length() == 0)
    return true;
  // An own enumerable tag is listed with the other keys; showing it in the
  // prefix as well would print it twice.
  v8::Maybe<bool> own = object->HasOwnProperty(context_, tag_key);
  if (own.IsNothing())
    return false;
  if (own.FromJust()) {
    v8::Local<v8::Value> descriptor;
    v8::Local<v8::Value> enumerable;
    if (!object->GetOwnPropertyDescriptor(context_, tag_key)
             .ToLocal(&descriptor) ||
        !descriptor->IsObject() ||
        !GetProperty(descriptor.As<v8::Object>(), "enumerable", &enumerable)) {
      return false;
    }
    if (enumerable->IsTrue())
      return true;
  }
  *out = ToUtf8(isolate_, tag);
  return true;
}

bool Inspector::GetKeys(v8::Local<v8::Object> object,
                        v8::IndexFilter index_filter,
                        std::vector<v8::Local<v8::Value>>* keys) {
  v8::Local<v8::Array> names;
  if (!object
           ->GetPropertyNames(
               context_, v8::KeyCollectionMode::kOwnOnly,
               show_hidden_ ? v8::ALL_PROPERTIES : v8::ONLY_ENUMERABLE,
               index_filter, v8::KeyConversionMode::kConvertToString)
           .ToLocal(&names)) {
    return false;
  }
  keys->reserve(names->Length());
  for (uint32_t i = 0; i < names->Length(); ++i) {
    v8::Local<v8::Value> key;
    if (!names->Get(context_, i).ToLocal(&key))
      return false;
    keys->push_back(key);
  }
  return true;
}

bool Inspector::DescribeArray(v8::Local<v8::Array> array,
                              const std::optional<std::string>& constructor,
                              const std::string& tag,
                              Layout* layout) {
  if (!GetKeys(array, v8::IndexFilter::kSkipIndices, &layout->keys))
    return false;
  uint32_t length = array->Length();
  std::string prefix =
      (constructor != std::string("Array") || !tag.empty())
          ? GetPrefix(constructor, tag, "Array", absl::StrCat("(", length, ")"))
          : "";
  layout->open = prefix + "[";
  layout->close = "]";
  if (length == 0 && layout->keys.empty()) {
    layout->complete = layout->open + "]";
    return true;
  }
  layout->extras = Extras::kArray;
  layout->kind = Layout::Kind::kArray;
  return true;
}

bool Inspector::DescribeSetOrMap(v8::Local<v8::Object> object,
                                 const std::optional<std::string>& constructor,
                                 const std::string& tag,
                                 Layout* layout) {
  if (!GetKeys(object, v8::IndexFilter::kIncludeIndices, &layout->keys))
    return false;
  bool is_set = object->IsSet();
  size_t size =
      is_set ? object.As<v8::Set>()->Size() : object.As<v8::Map>()->Size();
  std::string prefix = GetPrefix(constructor, tag, is_set ? "Set" : "Map",
                                 absl::StrCat("(", size, ")"));
  if (size == 0 && layout->keys.empty()) {
    layout->complete = prefix + "{}";
    return true;
  }
  layout->open = prefix + "{";
  layout->kind = is_set ? Layout::Kind::kSet : Layout::Kind::kMap;
  return true;
}

bool Inspector::DescribeTypedArray(
    v8::Local<v8::TypedArray> array,
    const std::optional<std::string>& constructor,
    const std::string& tag,
    Layout* layout) {
  if (!GetKeys(array, v8::IndexFilter::kSkipIndices, &layout->keys))
    return false;
  size_t length = array->Length();
  std::string fallback;
  if (!constructor)
    fallback = ToUtf8(isolate_, array->GetConstructorName());
  layout->open =
      GetPrefix(constructor, tag, fallback, absl::StrCat("(", length, ")")) +
      "[";
  layout->close = "]";
  if (length == 0 && layout->keys.empty()) {
    layout->complete = layout->open + "]";
    return true;
  }
  layout->extras = Extras::kArray;
  layout->kind = Layout::Kind::kTypedArray;
  return true;
}

bool Inspector::DescribeIterator(v8::Local<v8::Object> iterator,
                                 Layout* layout) {
  if (!GetKeys(iterator, v8::IndexFilter::kIncludeIndices, &layout->keys) ||
      !iterator->PreviewEntries(&layout->iterator_key_value)
           .ToLocal(&layout->iterator_entries)) {
    return false;
  }
  layout->open = absl::StrCat(
      "[", iterator->IsMapIterator() ? "Map" : "Set",
      layout->iterator_key_value ? " Entries" : " Iterator", "] {");
  layout->kind = Layout::Kind::kIterator;
  return true;
}

bool Inspector::DescribeWithBase(v8::Local<v8::Object> object,
                                 const std::optional<std::string>& constructor,
                                 const std::string& tag,
                                 Layout* layout,
                                 bool* described) {
  *described = true;
  std::string& base = layout->base;
  if (object->IsFunction())
    return FunctionBase(object.As<v8::Function>(), constructor, tag, &base);
  if (constructor == std::string("Object")) {
    // Plain objects, even a RegExp or Date whose prototype was replaced.
    *described = false;
  } else if (object->IsRegExp()) {
    base = RegExpToString(isolate_, object.As<v8::RegExp>());
    std::string prefix = GetPrefix(constructor, tag, "RegExp");
    if (prefix != "RegExp ")
      base = prefix + base;
  } else if (object->IsDate()) {
    double time = object.As<v8::Date>()->ValueOf();
    base = std::isnan(time) ? "Invalid Date" : IsoDate(time);
    std::string prefix = GetPrefix(constructor, tag, "Date");
    if (prefix != "Date ")
      base = prefix + base;
  } else if (object->IsNativeError()) {
    return FormatError(object, constructor, tag, &layout->keys, &base);
  } else if (object->IsNumberObject() || object->IsStringObject() ||
             object->IsBooleanObject() || object->IsBigIntObject() ||
             object->IsSymbolObject()) {
    base = BoxedBase(object, constructor, tag, &layout->keys);
  } else {
    *described = false;
  }
  return true;
}

void Inspector::DescribeBraced(v8::Local<v8::Object> object,
                               const std::optional<std::string>& constructor,
                               const std::string& tag,
                               Layout* layout) {
  std::vector<v8::Local<v8::Value>>& keys = layout->keys;
  if (constructor == std::string("Object")) {
    if (object->IsArgumentsObject())
      layout->open = "[Arguments] {";
    else if (!tag.empty())
      layout->open = GetPrefix(constructor, tag, "Object") + "{";
    if (keys.empty())
      layout->complete = layout->open + "}";
  } else if (object->IsArrayBuffer() || object->IsSharedArrayBuffer()) {
    layout->open = GetPrefix(constructor, tag,
                             object->IsArrayBuffer() ? "ArrayBuffer"
                                                     : "SharedArrayBuffer") +
                   "{";
    keys.insert(keys.begin(), ToV8String(isolate_, "byteLength"));
    if (object->IsArrayBuffer())
      layout->kind = Layout::Kind::kArrayBuffer;
  } else if (object->IsDataView()) {
    layout->open = GetPrefix(constructor, tag, "DataView") + "{";
    keys.insert(keys.begin(), {ToV8String(isolate_, "byteLength"),
                               ToV8String(isolate_, "byteOffset"),
                               ToV8String(isolate_, "buffer")});
  } else if (object->IsPromise()) {
    layout->open = GetPrefix(constructor, tag, "Promise") + "{";
    layout->kind = Layout::Kind::kPromise;
  } else if (object->IsWeakSet() || object->IsWeakMap()) {
    layout->open = GetPrefix(constructor, tag,
                             object->IsWeakSet() ? "WeakSet" : "WeakMap") +
                   "{";
    layout->kind = Layout::Kind::kWeakCollection;
  } else {
    std::string prefix = GetPrefix(constructor, tag, "Object");
    if (keys.empty())
      layout->complete = prefix + "{}";
    layout->open = prefix + "{";
  }
}

bool Inspector::Describe(v8::Local<v8::Object> object,
                         const std::optional<std::string>& constructor,
                         const std::string& tag,
                         Layout* layout) {
  if (object->IsArray())
    return DescribeArray(object.As<v8::Array>(), constructor, tag, layout);
  if (object->IsSet() || object->IsMap())
    return DescribeSetOrMap(object, constructor, tag, layout);
  if (object->IsTypedArray()) {
    return DescribeTypedArray(object.As<v8::TypedArray>(), constructor, tag,
                              layout);
  }
  if (object->IsMapIterator() || object->IsSetIterator())
    return DescribeIterator(object, layout);
  if (!GetKeys(object, v8::IndexFilter::kIncludeIndices, &layout->keys))
    return false;
  bool described;
  if (!DescribeWithBase(object, constructor, tag, layout, &described))
    return false;
  if (!described)
    DescribeBraced(object, constructor, tag, layout);
  else if (layout->keys.empty())
    layout->complete = layout->base;
  return true;
}

bool Inspector::FormatEntriesOf(v8::Local<v8::Object> object,
                                const Layout& layout,
                                int recurse_times,
                                std::vector<std::string>* output) {
  switch (layout.kind) {
    case Layout::Kind::kArray:
      return FormatArray(object.As<v8::Array>(), recurse_times, output);
    case Layout::Kind::kTypedArray:
      return FormatTypedArray(object.As<v8::TypedArray>(), output);
    case Layout::Kind::kSet:
      return FormatEntries(object.As<v8::Set>()->AsArray(), false, nullptr,
                           recurse_times, output);
    case Layout::Kind::kMap:
      return FormatEntries(object.As<v8::Map>()->AsArray(), true, " => ",
                           recurse_times, output);
    case Layout::Kind::kIterator:
      return FormatEntries(layout.iterator_entries, layout.iterator_key_value,
                           nullptr, recurse_times, output);
    case Layout::Kind::kArrayBuffer:
      FormatArrayBuffer(object.As<v8::ArrayBuffer>(), output);
      return true;
    case Layout::Kind::kPromise:
      return FormatPromise(object.As<v8::Promise>(), recurse_times, output);
    case Layout::Kind::kWeakCollection:
      output->push_back("<items unknown>");
      return true;
    case Layout::Kind::kNone:
      return true;
  }
  return true;
}

bool Inspector::FormatRaw(v8::Local<v8::Object> object,
                          int recurse_times,
                          std::string* out) {
  std::optional<std::string> constructor;
  std::string tag;
  Layout layout;
  if (!GetConstructorName(object, &constructor) ||
      !GetToStringTag(object, &tag) ||
      !Describe(object, constructor, tag, &layout)) {
    return false;
  }
  if (layout.complete) {
    *out = std::move(*layout.complete);
    return true;
  }

  if (recurse_times > depth_) {
    std::string name = GetPrefix(constructor, tag, "Object");
    name.pop_back();
    *out = constructor ? "[" + name + "]" : name;
    return true;
  }
  ++recurse_times;
  seen_.push_back(object);
  current_depth_ = recurse_times;

  std::vector<std::string> output;
  bool ok = FormatEntriesOf(object, layout, recurse_times, &output);
  for (size_t i = 0; ok && i < layout.keys.size(); ++i) {
    std::string entry;
    ok = FormatProperty(object, layout.keys[i], recurse_times, Extras::kObject,
                        &entry);
    output.push_back(std::move(entry));
  }
  seen_.pop_back();
  if (!ok)
    return false;

  int index = CircularIndex(object, false);
  if (index != 0) {
    std::string reference = absl::StrCat("<ref *", index, ">");
    layout.base =
        layout.base.empty() ? reference : reference + " " + layout.base;
  }
  bool grouped = layout.kind == Layout::Kind::kArray ||
                 layout.kind == Layout::Kind::kTypedArray;
  *out = ReduceToSingleString(std::move(output), layout.base, layout.open,
                              layout.close, layout.extras, recurse_times,
                              grouped ? object : v8::Local<v8::Object>());
  return true;
}

bool Inspector::FormatProperty(v8::Local<v8::Object> object,
                               v8::Local<v8::Value> key,
                               int recurse_times,
                               Extras extras,
                               std::string* out) {
  v8::Local<v8::Name> name;
  if (key->IsName()) {
    name = key.As<v8::Name>();
  } else {
    v8::Local<v8::String> string;
    if (!key->ToString(context_).ToLocal(&string))
      return false;
    name = string;
  }
  v8::Local<v8::Value> descriptor;
  if (!object->GetOwnPropertyDescriptor(context_, name).ToLocal(&descriptor))
    return false;
  v8::Local<v8::Value> value;
  v8::Local<v8::Value> getter;
  v8::Local<v8::Value> setter;
  bool enumerable = true;
  if (descriptor->IsObject()) {
    v8::Local<v8::Object> fields = descriptor.As<v8::Object>();
    v8::Local<v8::Value> enumerable_value;
    if (!GetProperty(fields, "value", &value) ||
        !GetProperty(fields, "get", &getter) ||
        !GetProperty(fields, "set", &setter) ||
        !GetProperty(fields, "enumerable", &enumerable_value)) {
      return false;
    }
    enumerable = enumerable_value->IsTrue();
  } else if (!object->Get(context_, name).ToLocal(&value)) {
    // Not an own property: a prototype getter such as byteLength.
    return false;
  }

  std::string text;
  if (!value->IsUndefined()) {
    indentation_ += 2;
    bool ok = FormatValue(value, recurse_times, &text);
    indentation_ -= 2;
    if (!ok)
      return false;
  } else if (!getter.IsEmpty() && !getter->IsUndefined()) {
    text = setter->IsUndefined() ? "[Getter]" : "[Getter/Setter]";
  } else if (!setter.IsEmpty() && !setter->IsUndefined()) {
    text = "[Setter]";
  } else {
    text = "undefined";
  }
  if (extras == Extras::kArray) {
    *out = std::move(text);
    return true;
  }

  std::string label;
  if (name->IsSymbol()) {
    label = "[" + SymbolToString(isolate_, name.As<v8::Symbol>()) + "]";
  } else {
    std::string key_text = ToUtf8(isolate_, name);
    if (key_text == "__proto__")
      label = "['__proto__']";
    else if (!enumerable)
      label = "[" + key_text + "]";
    else if (IsIdentifier(key_text))
      label = key_text;
    else
      label = QuoteString(ToUtf16(isolate_, name.As<v8::String>()));
  }
  *out = label + ": " + text;
  return true;
}

bool Inspector::FormatArray(v8::Local<v8::Array> array,
                            int recurse_times,
                            std::vector<std::string>* output) {
  uint32_t length = array->Length();
  uint32_t shown = std::min(length, kMaxArrayLength);
  for (uint32_t i = 0; i < shown; ++i) {
    v8::Maybe<bool> has = array->HasOwnProperty(context_, i);
    if (has.IsNothing())
      return false;
    if (!has.FromJust())
      return FormatSparseArray(array, recurse_times, i, output);
    std::string entry;
    if (!FormatProperty(array, v8::Integer::NewFromUnsigned(isolate_, i),
                        recurse_times, Extras::kArray, &entry)) {
      return false;
    }
    output->push_back(std::move(entry));
  }
  if (length > shown)
    output->push_back(MoreItems(length - shown));
  return true;
}

// Node's formatSpecialArray: walks the present indices only, so that
// `new Array(1e9)` prints at once as `[ <1000000000 empty items> ]`.
bool Inspector::FormatSparseArray(v8::Local<v8::Array> array,
                                  int recurse_times,
                                  uint32_t index,
                                  std::vector<std::string>* output) {
  v8::Local<v8::Array> names;
  if (!array
           ->GetPropertyNames(context_, v8::KeyCollectionMode::kOwnOnly,
                              v8::ONLY_ENUMERABLE,
                              v8::IndexFilter::kIncludeIndices,
                              v8::KeyConversionMode::kKeepNumbers)
           .ToLocal(&names)) {
    return false;
  }
  uint64_t next = index;
  for (uint32_t i = index;
       i < names->Length() && output->size() < kMaxArrayLength; ++i) {
    v8::Local<v8::Value> key;
    if (!names->Get(context_, i).ToLocal(&key))
      return false;
    // Indices come first, as numbers; the first other key ends them.
    if (!key->IsNumber())
      break;
    uint64_t position = static_cast<uint64_t>(key.As<v8::Number>()->Value());
    if (position != next) {
      uint64_t empty = position - next;
      output->push_back(absl::StrCat("<", Count(empty, "empty item"), ">"));
      next = position;
      if (output->size() == kMaxArrayLength)
        break;
    }
    std::string entry;
    if (!FormatProperty(array, key, recurse_times, Extras::kArray, &entry))
      return false;
    output->push_back(std::move(entry));
    ++next;
  }
  uint64_t remaining = array->Length() - next;
  if (output->size() != kMaxArrayLength) {
    if (remaining > 0) {
      output->push_back(absl::StrCat("<", Count(remaining, "empty item"), ">"));
    }
  } else if (remaining > 0) {
    output->push_back(MoreItems(remaining));
  }
  return true;
}

bool Inspector::FormatTypedArray(v8::Local<v8::TypedArray> array,
                                 std::vector<std::string>* output) {
  size_t length = array->Length();
  size_t shown = std::min<size_t>(length, kMaxArrayLength);
  for (size_t i = 0; i < shown; ++i) {
    v8::Local<v8::Value> element;
    if (!array->Get(context_, static_cast<uint32_t>(i)).ToLocal(&element))
      return false;
    std::string entry;
    if (!FormatPrimitive(element, &entry))
      return false;
    output->push_back(std::move(entry));
  }
  if (length > shown)
    output->push_back(MoreItems(length - shown));
  return true;
}

// Map and Set contents, and the entries of their iterators. `entries` is
// flat: [k0, v0, k1, v1, ...] when `key_value`. A Map prints `k => v`; a Map
// iterator's entries print as `[ k, v ]`.
bool Inspector::FormatEntries(v8::Local<v8::Array> entries,
                              bool key_value,
                              const char* separator,
                              int recurse_times,
                              std::vector<std::string>* output) {
  uint32_t step = key_value ? 2 : 1;
  uint32_t count = entries->Length() / step;
  uint32_t shown = std::min(count, kMaxArrayLength);
  indentation_ += 2;
  for (uint32_t i = 0; i < shown; ++i) {
    std::vector<std::string> parts;
    for (uint32_t j = 0; j < step; ++j) {
      v8::Local<v8::Value> value;
      std::string text;
      if (!entries->Get(context_, i * step + j).ToLocal(&value) ||
          !FormatValue(value, recurse_times, &text)) {
        indentation_ -= 2;
        return false;
      }
      parts.push_back(std::move(text));
    }
    if (!key_value) {
      output->push_back(std::move(parts[0]));
    } else if (separator != nullptr) {
      output->push_back(parts[0] + separator + parts[1]);
    } else {
      output->push_back(ReduceToSingleString(std::move(parts), "", "[", "]",
                                             Extras::kArray, recurse_times,
                                             v8::Local<v8::Object>()));
    }
  }
  indentation_ -= 2;
  if (count > shown)
    output->push_back(MoreItems(count - shown));
  return true;
}

bool Inspector::FormatPromise(v8::Local<v8::Promise> promise,
                              int recurse_times,
                              std::vector<std::string>* output) {
  v8::Promise::PromiseState state = promise->State();
  if (state == v8::Promise::kPending) {
    output->push_back("<pending>");
    return true;
  }
  std::string text;
  indentation_ += 2;
  bool ok = FormatValue(promise->Result(), recurse_times, &text);
  indentation_ -= 2;
  if (!ok)
    return false;
  output->push_back(state == v8::Promise::kRejected ? "<rejected> " + text
                                                    : text);
  return true;
}

void Inspector::FormatArrayBuffer(v8::Local<v8::ArrayBuffer> buffer,
                                  std::vector<std::string>* output) {
  std::shared_ptr<v8::BackingStore> store = buffer->GetBackingStore();
  const auto* bytes = static_cast<const unsigned char*>(store->Data());
  size_t length = buffer->ByteLength();
  size_t shown = std::min<size_t>(length, kMaxArrayLength);
  std::string hex = absl::StrJoin(bytes, bytes + shown, " ",
                                  [](std::string* out, unsigned char byte) {
                                    absl::StrAppendFormat(out, "%02x", byte);
                                  });
  if (length > shown)
    absl::StrAppend(&hex, " ... ", Count(length - shown, "more byte"));
  output->push_back(absl::StrCat("[Uint8Contents]: <", hex, ">"));
}

bool Inspector::FunctionBase(v8::Local<v8::Function> function,
                             const std::optional<std::string>& constructor,
                             const std::string& tag,
                             std::string* out) {
  v8::Local<v8::String> source;
  if (!function->FunctionProtoToString(context_).ToLocal(&source))
    return false;
  std::string text = ToUtf8(isolate_, source);
  v8::Local<v8::Value> name_value;
  if (!GetProperty(function, "name", &name_value))
    return false;
  std::string name =
      name_value->IsString() ? ToUtf8(isolate_, name_value) : std::string();

  if (text.compare(0, 5, "class") == 0 && !text.empty() && text.back() == '}') {
    // Node's getClassBase.
    std::string base =
        "class " + (name.empty() ? std::string("(anonymous)") : name);
    if (constructor != std::string("Function") && constructor)
      base += " [" + *constructor + "]";
    if (!tag.empty() && constructor != tag)
      base += " [" + tag + "]";
    if (constructor) {
      v8::Local<v8::Value> parent = host_compat::GetPrototype(function);
      v8::Local<v8::Value> parent_name;
      if (parent->IsObject()) {
        if (!GetProperty(parent.As<v8::Object>(), "name", &parent_name))
          return false;
        std::string super_name = parent_name->IsString()
                                     ? ToUtf8(isolate_, parent_name)
                                     : std::string();
        if (!super_name.empty())
          base += " extends " + super_name;
      }
    } else {
      base += " extends [null prototype]";
    }
    *out = "[" + base + "]";
    return true;
  }

  std::string type = "Function";
  if (function->IsGeneratorFunction())
    type = "Generator" + type;
  if (function->IsAsyncFunction())
    type = "Async" + type;
  std::string base = "[" + type;
  if (!constructor)
    base += " (null prototype)";
  if (name.empty())
    base += " (anonymous)";
  else
    base += ": " + name;
  base += "]";
  if (constructor && *constructor != type)
    base += " " + *constructor;
  if (!tag.empty() && constructor != tag)
    base += " [" + tag + "]";
  *out = base;
  return true;
}

bool Inspector::ReadError(v8::Local<v8::Object> error,
                          std::string* name,
                          std::string* message,
                          std::string* stack) {
  v8::Local<v8::Value> name_value;
  v8::Local<v8::Value> message_value;
  v8::Local<v8::Value> stack_value;
  if (!GetProperty(error, "name", &name_value) ||
      !GetProperty(error, "message", &message_value) ||
      !GetProperty(error, "stack", &stack_value)) {
    return false;
  }
  *name = "Error";
  if (!name_value->IsNullOrUndefined() && !ToDisplayString(name_value, name))
    return false;
  if (!message_value->IsUndefined() &&
      !ToDisplayString(message_value, message)) {
    return false;
  }
  if (stack_value->BooleanValue(isolate_))
    return ToDisplayString(stack_value, stack);
  // Error.prototype.toString().
  *stack = name->empty()      ? *message
           : message->empty() ? *name
                              : absl::StrCat(*name, ": ", *message);
  return true;
}

bool Inspector::RemoveDuplicateErrorKeys(
    v8::Local<v8::Object> error,
    const std::string& stack,
    std::vector<v8::Local<v8::Value>>* keys) {
  if (show_hidden_)
    return true;
  for (const char* duplicate : {"name", "message", "stack"}) {
    for (size_t i = 0; i < keys->size(); ++i) {
      if (!(*keys)[i]->IsString() ||
          ToUtf8(isolate_, (*keys)[i]) != duplicate) {
        continue;
      }
      v8::Local<v8::Value> value;
      std::string text;
      if (!GetProperty(error, duplicate, &value) ||
          !ToDisplayString(value, &text)) {
        return false;
      }
      if (stack.find(text) != std::string::npos)
        keys->erase(keys->begin() + static_cast<ptrdiff_t>(i));
      break;
    }
  }
  return true;
}

bool Inspector::AddHiddenErrorKeys(v8::Local<v8::Object> error,
                                   std::vector<v8::Local<v8::Value>>* keys) {
  for (const char* extra : {"cause", "errors"}) {
    v8::Local<v8::String> key = ToV8String(isolate_, extra);
    v8::Maybe<bool> has = error->Has(context_, key);
    if (has.IsNothing())
      return false;
    if (!has.FromJust())
      continue;
    if (std::string(extra) == "errors") {
      v8::Local<v8::Value> errors;
      if (!error->Get(context_, key).ToLocal(&errors))
        return false;
      if (!errors->IsArray())
        continue;
    }
    bool listed = false;
    for (const auto& existing : *keys) {
      if (existing->IsString() && ToUtf8(isolate_, existing) == extra)
        listed = true;
    }
    if (!listed)
      keys->push_back(key);
  }
  return true;
}

namespace {

// Node's improveStack: a subclass whose name the stack does not show is
// named from its constructor, e.g. `MyError: boom` or `Foo [TypeError]`.
std::string ImproveStack(const std::string& stack,
                         const std::string& name,
                         const std::optional<std::string>& constructor,
                         const std::string& tag) {
  size_t length = name.size();
  bool names_error_subclass =
      name.size() >= 5 && name.compare(name.size() - 5, 5, "Error") == 0 &&
      stack.compare(0, length, name) == 0 &&
      (stack.size() == length || stack[length] == ':' || stack[length] == '\n');
  if (constructor && !names_error_subclass)
    return stack;
  std::string fallback = "Error";
  if (!constructor) {
    fallback = stack.substr(0, stack.find_first_of(":\n"));
    length = fallback.size();
    if (fallback.empty())
      fallback = "Error";
  }
  std::string prefix = GetPrefix(constructor, tag, fallback);
  prefix.pop_back();
  if (name == prefix)
    return stack;
  if (prefix.find(name) != std::string::npos) {
    return length == 0 ? absl::StrCat(prefix, ": ", stack)
                       : absl::StrCat(prefix, stack.substr(length));
  }
  return absl::StrCat(prefix, " [", name, "]", stack.substr(length));
}

}  // namespace

std::string Inspector::FinishErrorStack(std::string stack,
                                        const std::string& message) const {
  // Without stack frames (Error.stackTraceLimit = 0, or a custom stack) the
  // error is wrapped in brackets, as Node does.
  size_t from = 0;
  if (!message.empty()) {
    size_t at = stack.find(message);
    if (at != std::string::npos)
      from = at + message.size();
  }
  if (stack.find("\n    at", from) == std::string::npos)
    stack = absl::StrCat("[", stack, "]");
  if (indentation_ == 0)
    return stack;
  std::string indented;
  for (char c : stack) {
    indented.push_back(c);
    if (c == '\n')
      indented += Spaces(indentation_);
  }
  return indented;
}

bool Inspector::FormatError(v8::Local<v8::Object> error,
                            const std::optional<std::string>& constructor,
                            const std::string& tag,
                            std::vector<v8::Local<v8::Value>>* keys,
                            std::string* out) {
  std::string name;
  std::string message;
  std::string stack;
  if (!ReadError(error, &name, &message, &stack) ||
      !RemoveDuplicateErrorKeys(error, stack, keys) ||
      !AddHiddenErrorKeys(error, keys)) {
    return false;
  }
  *out = FinishErrorStack(ImproveStack(stack, name, constructor, tag), message);
  return true;
}

std::string Inspector::BoxedBase(v8::Local<v8::Object> object,
                                 const std::optional<std::string>& constructor,
                                 const std::string& tag,
                                 std::vector<v8::Local<v8::Value>>* keys) {
  std::string type;
  std::string value;
  if (object->IsNumberObject()) {
    type = "Number";
    value = FormatNumber(context_, object.As<v8::NumberObject>()->ValueOf());
  } else if (object->IsStringObject()) {
    type = "String";
    v8::Local<v8::String> string = object.As<v8::StringObject>()->ValueOf();
    value = QuoteString(ToUtf16(isolate_, string));
    // The index keys are the characters, already shown in the value.
    size_t characters = static_cast<size_t>(string->Length());
    keys->erase(keys->begin(), keys->begin() + static_cast<ptrdiff_t>(std::min(
                                                   characters, keys->size())));
  } else if (object->IsBooleanObject()) {
    type = "Boolean";
    value = object.As<v8::BooleanObject>()->ValueOf() ? "true" : "false";
  } else if (object->IsBigIntObject()) {
    type = "BigInt";
    value = ToUtf8(isolate_, object.As<v8::BigIntObject>()->ValueOf()) + "n";
  } else {
    type = "Symbol";
    value = SymbolToString(isolate_, object.As<v8::SymbolObject>()->ValueOf());
  }
  std::string base = "[" + type;
  if (constructor != type) {
    if (!constructor)
      base += " (null prototype)";
    else
      base += " (" + *constructor + ")";
  }
  base += ": " + value + "]";
  if (!tag.empty() && constructor != tag)
    base += " [" + tag + "]";
  return base;
}

bool Inspector::IsBelowBreakLength(const std::vector<std::string>& output,
                                   int start,
                                   const std::string& base) const {
  int total = static_cast<int>(output.size()) + start;
  if (total + static_cast<int>(output.size()) > kBreakLength)
    return false;
  for (const std::string& entry : output) {
    total += DisplayLength(entry);
    if (total > kBreakLength)
      return false;
  }
  return base.empty() || base.find('\n') == std::string::npos;
}

std::string Inspector::ReduceToSingleString(std::vector<std::string> output,
                                            const std::string& base,
                                            const std::string& open,
                                            const std::string& close,
                                            Extras extras,
                                            int recurse_times,
                                            v8::Local<v8::Object> value) {
  size_t entries = output.size();
  if (extras == Extras::kArray && entries > 6)
    output = GroupArrayElements(output, value);
  std::string head = base.empty() ? open : base + " " + open;
  // Up to kCompact inner levels fit on one line if they are short enough.
  if (current_depth_ - recurse_times < kCompact && entries == output.size()) {
    int start = static_cast<int>(output.size()) + indentation_ +
                DisplayLength(open) + DisplayLength(base) + 10;
    if (IsBelowBreakLength(output, start, base)) {
      std::string joined = absl::StrJoin(output, ", ");
      if (joined.find('\n') == std::string::npos)
        return head + " " + joined + " " + close;
    }
  }
  std::string indentation = "\n" + Spaces(indentation_);
  return head + indentation + "  " +
         absl::StrJoin(output, absl::StrCat(",", indentation, "  ")) +
         indentation + close;
}

// Node's groupArrayElements: lays out more than six short array entries in
// aligned columns; numbers are right-aligned, everything else left-aligned.
std::vector<std::string> Inspector::GroupArrayElements(
    const std::vector<std::string>& output,
    v8::Local<v8::Object> value) {
  int total_length = 0;
  int max_length = 0;
  size_t output_length = output.size();
  // The "... more items" entry is not part of the grid.
  if (kMaxArrayLength < output.size())
    --output_length;
  constexpr int kSeparatorSpace = 2;  // ", "
  std::vector<int> data_length(output_length);
  for (size_t i = 0; i < output_length; ++i) {
    int length = DisplayLength(output[i]);
    data_length[i] = length;
    total_length += length + kSeparatorSpace;
    max_length = std::max(max_length, length);
  }
  int actual_max = max_length + kSeparatorSpace;
  if (actual_max * 3 + indentation_ < kBreakLength &&
      (static_cast<double>(total_length) / actual_max > 5 || max_length <= 6)) {
    constexpr double kApproxCharHeights = 2.5;
    double average_bias = std::sqrt(
        actual_max - static_cast<double>(total_length) / output.size());
    double biased_max = std::max(actual_max - 3 - average_bias, 1.0);
    int columns = std::min(
        {static_cast<int>(std::round(
             std::sqrt(kApproxCharHeights * biased_max * output_length) /
             biased_max)),
         (kBreakLength - indentation_) / actual_max, kCompact * 4, 15});
    if (columns <= 1)
      return output;
    std::vector<int> max_line_length;
    for (int i = 0; i < columns; ++i) {
      int line_length = 0;
      for (size_t j = i; j < output.size(); j += columns) {
        if (j < output_length && data_length[j] > line_length)
          line_length = data_length[j];
      }
      max_line_length.push_back(line_length + kSeparatorSpace);
    }
    bool pad_start = true;
    if (!value.IsEmpty()) {
      // Only a layout hint: an element getter that throws is not an error.
      v8::TryCatch try_catch(isolate_);
      for (size_t i = 0; i < output.size(); ++i) {
        v8::Local<v8::Value> element;
        if (!value->Get(context_, static_cast<uint32_t>(i)).ToLocal(&element) ||
            !(element->IsNumber() || element->IsBigInt())) {
          pad_start = false;
          break;
        }
      }
    }
    std::vector<std::string> grouped;
    for (size_t i = 0; i < output_length; i += columns) {
      size_t max = std::min(i + columns, output_length);
      std::string line;
      size_t j = i;
      for (; j < max - 1; ++j) {
        std::string cell = output[j] + ", ";
        int padding = max_line_length[j - i] - data_length[j] - kSeparatorSpace;
        if (pad_start)
          line += Spaces(padding) + cell;
        else
          line += cell + Spaces(padding);
      }
      if (pad_start) {
        int padding = max_line_length[j - i] - data_length[j] - kSeparatorSpace;
        line += Spaces(padding) + output[j];
      } else {
        line += output[j];
      }
      grouped.push_back(std::move(line));
    }
    if (kMaxArrayLength < output.size())
      grouped.push_back(output[output_length]);
    return grouped;
  }
  return output;
}

}  // namespace

v8::Maybe<std::string> Inspect(v8::Local<v8::Context> context,
                               v8::Local<v8::Value> value,
                               const InspectOptions& options) {
  Inspector inspector(context, options);
  std::string out;
  if (!inspector.FormatValue(value, 0, &out))
    return v8::Nothing<std::string>();
  return v8::Just(std::move(out));
}

}  // namespace shell
}  // namespace asyncctx
