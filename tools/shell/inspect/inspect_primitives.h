// Copyright 2026 the asyncctx authors. All rights reserved.
//
// How single values are spelled by Inspect() and the error messages built on
// it, following Node.js's util.inspect: quoted strings, numbers, symbols,
// dates and regular expressions. None of these runs JavaScript.

#ifndef TOOLS_SHELL_INSPECT_INSPECT_PRIMITIVES_H_
#define TOOLS_SHELL_INSPECT_INSPECT_PRIMITIVES_H_

#include <string>

#include "v8-context.h"
#include "v8-local-handle.h"
#include "v8-primitive.h"
#include "v8-regexp.h"

namespace asyncctx {
namespace shell {

// A string literal as Node prints one inside a container: quoted with '
// unless the text contains one (then " or `), with control characters,
// backslashes, the quote and lone surrogates escaped. Returns UTF-8.
std::string QuoteString(const std::u16string& text);

// The UTF-16 contents of `string`.
std::u16string ToUtf16(v8::Isolate* isolate, v8::Local<v8::String> string);

// The width Node gives `text` when it lays out lines: its length in UTF-16
// code units, approximated by counting the code points of the UTF-8 text
// (equal outside the astral planes).
int DisplayLength(const std::string& text);

// A number the way JavaScript and Node print it: `-0` keeps its sign.
std::string FormatNumber(v8::Local<v8::Context> context, double value);

// `Symbol(description)`, as Symbol.prototype.toString() gives it.
std::string SymbolToString(v8::Isolate* isolate, v8::Local<v8::Symbol> symbol);

// Date.prototype.toISOString() of a valid (not NaN) time value.
std::string IsoDate(double time);

// `/source/flags`, as RegExp.prototype.toString() gives it, but without
// calling into JavaScript.
std::string RegExpToString(v8::Isolate* isolate, v8::Local<v8::RegExp> regexp);

}  // namespace shell
}  // namespace asyncctx

#endif  // TOOLS_SHELL_INSPECT_INSPECT_PRIMITIVES_H_
