// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/inspect/inspect_primitives.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_format.h"
#include "tools/shell/bindings.h"
#include "tools/v8_host/v8_host_compat.h"
#include "v8-isolate.h"

namespace asyncctx {
namespace shell {
namespace {

void AppendUtf8(std::string* out, uint32_t code_point) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

bool Contains(const std::u16string& text, const char16_t* needle) {
  return text.find(needle) != std::u16string::npos;
}

}  // namespace

// Node's strEscape: quotes with ' unless the text contains one, then with "
// or `, and escapes control characters, the quote, backslashes and lone
// surrogates.
std::string QuoteString(const std::u16string& text) {
  char16_t quote = u'\'';
  if (Contains(text, u"'")) {
    if (!Contains(text, u"\""))
      quote = u'"';
    else if (!Contains(text, u"`") && !Contains(text, u"${"))
      quote = u'`';
  }
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back(static_cast<char>(quote));
  for (size_t i = 0; i < text.size(); ++i) {
    char16_t c = text[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < text.size() &&
        text[i + 1] >= 0xDC00 && text[i + 1] <= 0xDFFF) {
      AppendUtf8(&out, 0x10000 + ((c - 0xD800) << 10) + (text[i + 1] - 0xDC00));
      ++i;
      continue;
    }
    switch (c) {
      case u'\b':
        out += "\\b";
        continue;
      case u'\t':
        out += "\\t";
        continue;
      case u'\n':
        out += "\\n";
        continue;
      case u'\f':
        out += "\\f";
        continue;
      case u'\r':
        out += "\\r";
        continue;
      case u'\\':
        out += "\\\\";
        continue;
      default:
        break;
    }
    if (c == quote && quote == u'\'') {
      out += "\\'";
    } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
      absl::StrAppendFormat(&out, "\\x%02X", static_cast<unsigned>(c));
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned>(c));
    } else {
      AppendUtf8(&out, c);
    }
  }
  out.push_back(static_cast<char>(quote));
  return out;
}

std::u16string ToUtf16(v8::Isolate* isolate, v8::Local<v8::String> string) {
  std::u16string text(static_cast<size_t>(string->Length()), u'\0');
  host_compat::WriteUtf16(isolate, string,
                          reinterpret_cast<uint16_t*>(&text[0]));
  return text;
}

// Node measures entries in UTF-16 code units; counting code points of the
// UTF-8 text agrees for everything outside the astral planes.
int DisplayLength(const std::string& text) {
  int length = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80)
      ++length;
  }
  return length;
}

std::string SymbolToString(v8::Isolate* isolate, v8::Local<v8::Symbol> sym) {
  v8::Local<v8::Value> description = sym->Description(isolate);
  if (description->IsUndefined())
    return "Symbol()";
  return "Symbol(" + ToUtf8(isolate, description) + ")";
}

// Date.prototype.toISOString() of a valid time value, done here so that a
// user's override of toISOString cannot change what is printed.
std::string IsoDate(double time) {
  constexpr int64_t kMsPerDay = 86400000;
  int64_t ms = static_cast<int64_t>(time);
  int64_t days = ms / kMsPerDay;
  int64_t rest = ms % kMsPerDay;
  if (rest < 0) {
    rest += kMsPerDay;
    --days;
  }
  // Howard Hinnant's civil_from_days.
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t day = doy - (153 * mp + 2) / 5 + 1;
  int64_t month = mp < 10 ? mp + 3 : mp - 9;
  int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  std::string year_text = year >= 0 && year <= 9999
                              ? absl::StrFormat("%04d", year)
                              : absl::StrFormat("%c%06d", year < 0 ? '-' : '+',
                                                year < 0 ? -year : year);
  return absl::StrFormat("%s-%02d-%02dT%02d:%02d:%02d.%03dZ", year_text, month,
                         day, rest / 3600000, rest / 60000 % 60,
                         rest / 1000 % 60, rest % 1000);
}

std::string RegExpToString(v8::Isolate* isolate, v8::Local<v8::RegExp> regexp) {
  std::string out = "/" + ToUtf8(isolate, regexp->GetSource()) + "/";
  // The order of RegExp.prototype.flags.
  static constexpr struct {
    v8::RegExp::Flags flag;
    char letter;
  } kFlags[] = {
      {v8::RegExp::kHasIndices, 'd'}, {v8::RegExp::kGlobal, 'g'},
      {v8::RegExp::kIgnoreCase, 'i'}, {v8::RegExp::kLinear, 'l'},
      {v8::RegExp::kMultiline, 'm'},  {v8::RegExp::kDotAll, 's'},
      {v8::RegExp::kUnicode, 'u'},    {v8::RegExp::kSticky, 'y'},
  };
  v8::RegExp::Flags flags = regexp->GetFlags();
  for (const auto& entry : kFlags) {
    if (flags & entry.flag)
      out.push_back(entry.letter);
  }
  return out;
}

std::string FormatNumber(v8::Local<v8::Context> context, double value) {
  if (value == 0 && std::signbit(value))
    return "-0";
  v8::Isolate* isolate = host_compat::IsolateOf(context);
  v8::Local<v8::String> text;
  if (!v8::Number::New(isolate, value)->ToString(context).ToLocal(&text))
    return "NaN";
  return ToUtf8(isolate, text);
}

}  // namespace shell
}  // namespace asyncctx
