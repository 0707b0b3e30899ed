// JsonWriter and the string escaper every JSON text of the server goes
// through (appendJsonQuoted): one place that knows commas, nesting, number
// spelling and escaping.
#include <charconv>
#include <cmath>

#include "abx/sdk/json.h"

namespace abx::sdk {

// Hand-written rather than a library's escaper: output of child processes is
// arbitrary bytes, and every response must still be valid JSON, so invalid
// UTF-8 becomes U+FFFD here instead of passing through or throwing.
void appendJsonQuoted(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    // The common case: a run that needs no escape, copied in one piece.
    std::size_t run = i;
    while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\') ++run;
    out.append(text.data() + i, run - i);
    i = run;
    if (i >= n) break;
    const unsigned char c = s[i];
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
      }
      ++i;
      continue;
    }
    const std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = len != 0 && i + len <= n;
    for (std::size_t k = 1; valid && k < len; ++k) valid = (s[i + k] & 0xC0) == 0x80;
    if (valid) {
      unsigned cp = c & (0x7F >> len);
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
      // Reject overlong forms, surrogates and values past U+10FFFF.
      static constexpr unsigned kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      valid = cp >= kMin[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (valid) {
      out.append(text.data() + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  out += '"';
}

std::string jsonQuote(std::string_view text) {
  std::string out;
  appendJsonQuoted(out, text);
  return out;
}

JsonWriter::JsonWriter(std::size_t bytes) { out_.reserve(bytes); }

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ += ',';
    has_items_.back() = true;
  }
}

JsonWriter& JsonWriter::beginObject() {
  separate();
  out_ += '{';
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  out_ += '}';
  if (!has_items_.empty()) has_items_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  separate();
  out_ += '[';
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  out_ += ']';
  if (!has_items_.empty()) has_items_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  appendJsonQuoted(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  appendJsonQuoted(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) { return raw(flag ? "true" : "false"); }

JsonWriter& JsonWriter::value(std::int64_t number) {
  char buffer[24];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
  return raw(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
  char buffer[24];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
  return raw(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

// JSON has no NaN or infinity: they are written as null, as JSON.stringify does.
JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  char buffer[32];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
  return raw(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

JsonWriter& JsonWriter::value(const JsonScalar& scalar) {
  return std::visit(
      [this](const auto& v) -> JsonWriter& {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return null();
        else
          return value(v);
      },
      scalar);
}

JsonWriter& JsonWriter::value(const Json& json) {
  if (json.isMissing()) return null();
  return raw(json.dump());
}

JsonWriter& JsonWriter::null() { return raw("null"); }

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

std::string JsonWriter::take() {
  std::string text = std::move(out_);
  out_.clear();
  has_items_.clear();
  after_key_ = false;
  return text;
}

}  // namespace abx::sdk
