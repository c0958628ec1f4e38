// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/inspect/console.h"

#include <cstdio>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tools/shell/bindings.h"
#include "tools/shell/inspect/inspect.h"
#include "tools/shell/inspect/inspect_primitives.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-container.h"
#include "v8-debug.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-isolate.h"
#include "v8-json.h"
#include "v8-object.h"
#include "v8-primitive.h"

namespace asyncctx {
namespace shell {
namespace {

// Every console method gets this array as its data: the context's original
// parseInt and parseFloat, which %i and %f use, captured before user code
// could replace them, and the ConsoleHost.
enum ConsoleData { kParseInt, kParseFloat, kReporter, kDataLength };

v8::Maybe<std::string> Format(v8::Local<v8::Context> context,
                              v8::Local<v8::Value> data,
                              const std::vector<v8::Local<v8::Value>>& args);

void Write(const v8::FunctionCallbackInfo<v8::Value>& info,
           FILE* stream,
           const std::string& text) {
  // After a fatal error JavaScript is being terminated, but the native call
  // in progress (say, a console.log right after a throwing init hook) still
  // completes. Node would have exited already, so it prints nothing.
  v8::Local<v8::Value> reporter;
  if (info.Data()->IsArray() &&
      info.Data()
          .As<v8::Array>()
          ->Get(info.GetIsolate()->GetCurrentContext(), kReporter)
          .ToLocal(&reporter) &&
      reporter->IsExternal() &&
      !static_cast<const ConsoleHost*>(reporter.As<v8::External>()->Value())
           ->OutputEnabled()) {
    return;
  }
  fwrite(text.data(), 1, text.size(), stream);
  fputc('\n', stream);
  // Unbuffered like Node's console on files and pipes, so output is not lost
  // when the shell exits on an error and stdout and stderr interleave in the
  // order the script wrote them.
  fflush(stream);
}

// Node's builtInObjects: the global constructors whose toString() %s trusts.
bool IsBuiltInConstructorName(const std::string& name) {
  static const auto* const kNames =
      new absl::flat_hash_set<std::string>({"AggregateError",
                                            "Array",
                                            "ArrayBuffer",
                                            "BigInt",
                                            "BigInt64Array",
                                            "BigUint64Array",
                                            "Boolean",
                                            "DataView",
                                            "Date",
                                            "Error",
                                            "EvalError",
                                            "FinalizationRegistry",
                                            "Float32Array",
                                            "Float64Array",
                                            "Function",
                                            "Int16Array",
                                            "Int32Array",
                                            "Int8Array",
                                            "Map",
                                            "Number",
                                            "Object",
                                            "Promise",
                                            "Proxy",
                                            "RangeError",
                                            "ReferenceError",
                                            "RegExp",
                                            "Set",
                                            "SharedArrayBuffer",
                                            "String",
                                            "Symbol",
                                            "SyntaxError",
                                            "TypeError",
                                            "URIError",
                                            "Uint16Array",
                                            "Uint32Array",
                                            "Uint8Array",
                                            "Uint8ClampedArray",
                                            "WeakMap",
                                            "WeakRef",
                                            "WeakSet"});
  return kNames->contains(name);
}

// Node's hasBuiltInToString: %s inspects objects whose toString() comes from
// a built-in class and calls String() on the others.
v8::Maybe<bool> HasBuiltInToString(v8::Local<v8::Context> context,
                                   v8::Local<v8::Object> object) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  if (object->IsProxy())
    return v8::Just(true);
  v8::Local<v8::Value> to_primitive;
  if (!object->Get(context, v8::Symbol::GetToPrimitive(isolate))
           .ToLocal(&to_primitive)) {
    return v8::Nothing<bool>();
  }
  if (to_primitive->IsFunction())
    return v8::Just(false);
  v8::Local<v8::String> key = ToV8String(isolate, "toString");
  v8::Local<v8::Value> to_string;
  if (!object->Get(context, key).ToLocal(&to_string))
    return v8::Nothing<bool>();
  if (!to_string->IsFunction())
    return v8::Just(true);
  v8::Local<v8::Value> holder = object;
  while (holder->IsObject()) {
    v8::Maybe<bool> own = holder.As<v8::Object>()->HasOwnProperty(context, key);
    if (own.IsNothing())
      return v8::Nothing<bool>();
    if (own.FromJust())
      break;
    holder = host_compat::GetPrototype(holder.As<v8::Object>());
  }
  if (holder == object || !holder->IsObject())
    return v8::Just(false);
  v8::Local<v8::Value> descriptor;
  if (!holder.As<v8::Object>()
           ->GetOwnPropertyDescriptor(context,
                                      ToV8String(isolate, "constructor"))
           .ToLocal(&descriptor)) {
    return v8::Nothing<bool>();
  }
  if (!descriptor->IsObject())
    return v8::Just(false);
  v8::Local<v8::Value> constructor;
  if (!descriptor.As<v8::Object>()
           ->Get(context, ToV8String(isolate, "value"))
           .ToLocal(&constructor)) {
    return v8::Nothing<bool>();
  }
  if (!constructor->IsFunction())
    return v8::Just(false);
  return v8::Just(IsBuiltInConstructorName(
      ToUtf8(isolate, constructor.As<v8::Function>()->GetName())));
}

// JavaScript's String(value): unlike ToString() it accepts symbols.
v8::Maybe<std::string> ToJsString(v8::Local<v8::Context> context,
                                  v8::Local<v8::Value> value) {
  if (value->IsSymbol())
    return Inspect(context, value);
  v8::Local<v8::String> string;
  if (!value->ToString(context).ToLocal(&string))
    return v8::Nothing<std::string>();
  return v8::Just(ToUtf8(host_compat::IsolateOf(context), string));
}

v8::Maybe<std::string> FormatBigInt(v8::Local<v8::Context> context,
                                    v8::Local<v8::Value> value) {
  std::string text;
  if (!ToJsString(context, value).To(&text))
    return v8::Nothing<std::string>();
  return v8::Just(text + "n");
}

// %s
v8::Maybe<std::string> FormatString(v8::Local<v8::Context> context,
                                    v8::Local<v8::Value> value) {
  if (value->IsNumber())
    return v8::Just(FormatNumber(context, value.As<v8::Number>()->Value()));
  if (value->IsBigInt())
    return FormatBigInt(context, value);
  // typeof: functions are not 'object' and print through String().
  if (value->IsObject() && !value->IsFunction()) {
    bool built_in;
    if (!HasBuiltInToString(context, value.As<v8::Object>()).To(&built_in))
      return v8::Nothing<std::string>();
    if (built_in)
      return Inspect(context, value, InspectOptions{0});
  }
  return ToJsString(context, value);
}

// %d, %i and %f: Number(), parseInt() or parseFloat() of the value (an
// empty `parse` means Number()). %d and %i print a BigInt as it is.
v8::Maybe<std::string> FormatNumeric(v8::Local<v8::Context> context,
                                     v8::Local<v8::Value> value,
                                     v8::Local<v8::Value> parse,
                                     bool keep_bigint) {
  if (value->IsSymbol())
    return v8::Just(std::string("NaN"));
  if (keep_bigint && value->IsBigInt())
    return FormatBigInt(context, value);
  v8::Local<v8::Value> number;
  if (parse.IsEmpty() || !parse->IsFunction()) {
    if (!value->ToNumber(context).ToLocal(&number))
      return v8::Nothing<std::string>();
  } else if (!parse.As<v8::Function>()
                  ->Call(context,
                         v8::Undefined(host_compat::IsolateOf(context)), 1,
                         &value)
                  .ToLocal(&number)) {
    return v8::Nothing<std::string>();
  }
  if (!number->IsNumber())
    return ToJsString(context, number);
  return v8::Just(FormatNumber(context, number.As<v8::Number>()->Value()));
}

// %j: JSON.stringify, with '[Circular]' for cyclic values as in Node.
v8::Maybe<std::string> FormatJson(v8::Local<v8::Context> context,
                                  v8::Local<v8::Value> value) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::TryCatch try_catch(isolate);
  v8::Local<v8::String> json;
  if (v8::JSON::Stringify(context, value).ToLocal(&json))
    return v8::Just(ToUtf8(isolate, json));
  if (try_catch.HasTerminated()) {
    try_catch.ReThrow();
    return v8::Nothing<std::string>();
  }
  v8::Local<v8::Value> exception = try_catch.Exception();
  if (exception->IsNativeError()) {
    std::string message = ToUtf8(isolate, exception);
    if (message.find("TypeError: Converting circular structure to JSON") == 0)
      return v8::Just(std::string("[Circular]"));
  }
  try_catch.ReThrow();
  return v8::Nothing<std::string>();
}

std::vector<v8::Local<v8::Value>> Arguments(
    const v8::FunctionCallbackInfo<v8::Value>& info,
    int from) {
  std::vector<v8::Local<v8::Value>> args;
  for (int i = from; i < info.Length(); ++i)
    args.push_back(info[i]);
  return args;
}

void Print(const v8::FunctionCallbackInfo<v8::Value>& info, FILE* stream) {
  std::string text;
  if (FormatArguments(info).To(&text))
    Write(info, stream, text);
}

void Log(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Print(info, stdout);
}

void Error(const v8::FunctionCallbackInfo<v8::Value>& info) {
  Print(info, stderr);
}

void Dir(const v8::FunctionCallbackInfo<v8::Value>& info) {
  std::string text;
  if (Inspect(info.GetIsolate()->GetCurrentContext(), info[0]).To(&text))
    Write(info, stdout, text);
}

// console.assert(value, ...message): warns "Assertion failed" when falsy.
void Assert(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (info[0]->BooleanValue(info.GetIsolate()))
    return;
  std::string text = "Assertion failed";
  if (info.Length() > 1) {
    std::string message;
    if (!Format(info.GetIsolate()->GetCurrentContext(), info.Data(),
                Arguments(info, 1))
             .To(&message)) {
      return;
    }
    text += ": " + message;
  }
  Write(info, stderr, text);
}

// console.trace(...message): "Trace: message" and the caller's stack.
void Trace(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  std::string text;
  if (!FormatArguments(info).To(&text))
    return;
  text = info.Length() == 0 ? "Trace" : "Trace: " + text;
  v8::Local<v8::StackTrace> stack =
      v8::StackTrace::CurrentStackTrace(isolate, 10, v8::StackTrace::kDetailed);
  for (int i = 0; i < stack->GetFrameCount(); ++i) {
    v8::Local<v8::StackFrame> frame = stack->GetFrame(isolate, i);
    // Both names are empty handles for anonymous functions and scripts.
    v8::Local<v8::String> function_name = frame->GetFunctionName();
    v8::Local<v8::String> script_name = frame->GetScriptName();
    std::string function = function_name.IsEmpty()
                               ? std::string()
                               : ToUtf8(isolate, function_name);
    std::string location =
        absl::StrCat(script_name.IsEmpty() ? std::string("<anonymous>")
                                           : ToUtf8(isolate, script_name),
                     ":", frame->GetLineNumber(), ":", frame->GetColumn());
    text += "\n    at " +
            (function.empty() ? location : function + " (" + location + ")");
  }
  Write(info, stderr, text);
}

// Node's formatWithOptionsInternal. `data` is the console's ConsoleData.
v8::Maybe<std::string> Format(v8::Local<v8::Context> context,
                              v8::Local<v8::Value> data,
                              const std::vector<v8::Local<v8::Value>>& args) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  const int argc = static_cast<int>(args.size());
  v8::Local<v8::Value> parse_int;
  v8::Local<v8::Value> parse_float;
  if (data->IsArray()) {
    v8::Local<v8::Array> parsers = data.As<v8::Array>();
    if (!parsers->Get(context, kParseInt).ToLocal(&parse_int) ||
        !parsers->Get(context, kParseFloat).ToLocal(&parse_float)) {
      return v8::Nothing<std::string>();
    }
  }

  std::string out;
  std::string join;
  int a = 0;
  if (argc > 0 && args[0]->IsString()) {
    std::string first = ToUtf8(isolate, args[0]);
    if (argc == 1)
      return v8::Just(first);
    size_t last = 0;
    // Node's formatWithOptionsInternal; `%` and the letters are ASCII, so
    // scanning UTF-8 bytes finds the same placeholders.
    for (size_t i = 0; i + 1 < first.size(); ++i) {
      if (first[i] != '%')
        continue;
      char next = first[++i];
      if (a + 1 != argc) {
        v8::Maybe<std::string> piece = v8::Nothing<std::string>();
        switch (next) {
          case 's':
            piece = FormatString(context, args[++a]);
            break;
          case 'j':
            piece = FormatJson(context, args[++a]);
            break;
          case 'd':
            piece =
                FormatNumeric(context, args[++a], v8::Local<v8::Value>(), true);
            break;
          case 'O':
            piece = Inspect(context, args[++a]);
            break;
          case 'o':
            piece = Inspect(context, args[++a], InspectOptions{4, true});
            break;
          case 'i':
            piece = FormatNumeric(context, args[++a], parse_int, true);
            break;
          case 'f':
            piece = FormatNumeric(context, args[++a], parse_float, false);
            break;
          case 'c':
            ++a;
            piece = v8::Just(std::string());
            break;
          case '%':
            out += first.substr(last, i - last);
            last = i + 1;
            continue;
          default:
            continue;
        }
        std::string text;
        if (!piece.To(&text))
          return v8::Nothing<std::string>();
        if (last != i - 1)
          out += first.substr(last, i - 1 - last);
        out += text;
        last = i + 1;
      } else if (next == '%') {
        out += first.substr(last, i - last);
        last = i + 1;
      }
    }
    if (last != 0) {
      ++a;
      join = " ";
      if (last < first.size())
        out += first.substr(last);
    }
  }
  for (; a < argc; ++a) {
    out += join;
    if (args[a]->IsString()) {
      out += ToUtf8(isolate, args[a]);
    } else {
      std::string text;
      if (!Inspect(context, args[a]).To(&text))
        return v8::Nothing<std::string>();
      out += text;
    }
    join = " ";
  }
  return v8::Just(std::move(out));
}

}  // namespace

v8::Maybe<std::string> FormatArguments(
    const v8::FunctionCallbackInfo<v8::Value>& info) {
  return Format(info.GetIsolate()->GetCurrentContext(), info.Data(),
                Arguments(info, 0));
}

bool InstallConsole(v8::Local<v8::Context> context, const ConsoleHost* host) {
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::Object> global = context->Global();
  v8::Local<v8::Value> parse_int;
  v8::Local<v8::Value> parse_float;
  if (!global->Get(context, ToV8String(isolate, "parseInt"))
           .ToLocal(&parse_int) ||
      !global->Get(context, ToV8String(isolate, "parseFloat"))
           .ToLocal(&parse_float)) {
    return false;
  }
  // The External only carries the pointer; nothing writes through it.
  v8::Local<v8::Value> values[kDataLength] = {
      parse_int, parse_float,
      v8::External::New(isolate, const_cast<ConsoleHost*>(host))};
  v8::Local<v8::Array> data = v8::Array::New(isolate, values, kDataLength);

  v8::Local<v8::Object> console = v8::Object::New(isolate);
  const struct {
    const char* name;
    v8::FunctionCallback callback;
  } kMethods[] = {
      {"log", Log},     {"info", Log}, {"debug", Log},   {"warn", Error},
      {"error", Error}, {"dir", Dir},  {"trace", Trace}, {"assert", Assert},
  };
  for (const auto& method : kMethods) {
    if (!SetFunction(context, console, method.name, method.callback, data))
      return false;
  }
  return global
      ->DefineOwnProperty(context, ToV8String(isolate, "console"), console,
                          v8::DontEnum)
      .FromMaybe(false);
}

}  // namespace shell
}  // namespace asyncctx
