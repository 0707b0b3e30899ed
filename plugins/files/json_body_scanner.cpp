// One character at a time through a small state machine, except runs of
// plain string bytes, which are handed on (or kept) in one piece: that is
// what keeps a large base64 member fast. The grammar is RFC 8259's for the
// top level; nested values are skipped with their brackets and strings
// checked, which is all an upload needs from them.
#include "json_body_scanner.h"

#include <algorithm>
#include <cstdlib>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace abx::plugins::files {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool isScalarChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '+' || c == '.';
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isPlainStringByte(char c) {
  auto u = static_cast<unsigned char>(c);
  return u != '"' && u != '\\' && u >= 0x20;
}

/**
 * The index of the first byte from @p i on that ends a run of plain string
 * bytes (a quote, a backslash, a control character), or bytes.size(). A
 * large base64 member is nothing but such a run: 16 bytes a step with SSE2.
 */
std::size_t plainRunEnd(std::string_view bytes, std::size_t i) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1f);
  for (; i + 16 <= bytes.size(); i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes.data() + i));
    __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
    // v <= 0x1f (unsigned) exactly when min(v, 0x1f) == v.
    special = _mm_or_si128(special, _mm_cmpeq_epi8(_mm_min_epu8(v, control_max), v));
    if (int mask = _mm_movemask_epi8(special))
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < bytes.size() && isPlainStringByte(bytes[i])) ++i;
  return i;
}

/** A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
bool isJsonNumber(std::string_view s, bool& integer) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  integer = true;
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    integer = false;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    integer = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

}  // namespace

JsonBodyScanner::JsonBodyScanner(std::vector<std::string> streamed, ChunkFn on_chunk,
                                 std::size_t max_kept)
    : streamed_(std::move(streamed)), on_chunk_(std::move(on_chunk)), max_kept_(max_kept) {}

sdk::Status JsonBodyScanner::fail(std::string why) {
  error_ = sdk::Status::error("Invalid JSON: " + why, "ValueError");
  return error_;
}

sdk::Status JsonBodyScanner::feed(std::string_view bytes) {
  if (!error_) return error_;
  for (std::size_t i = 0; i < bytes.size();) {
    sdk::Status s;
    if (str_ != Str::none) {
      s = stringChar(bytes, i);  // advances i itself
    } else if (!nest_.empty()) {
      s = nestedChar(bytes[i++]);
    } else if (!scalar_.empty()) {
      bool consumed = false;
      s = scalarChar(bytes[i], consumed);
      if (consumed) ++i;
    } else {
      s = step(bytes[i++]);
    }
    if (!s) {
      if (error_) error_ = s;  // a failure from the chunk callback
      return error_;
    }
  }
  return sdk::Status::ok();
}

sdk::Status JsonBodyScanner::finish() {
  if (!error_) return error_;
  if (state_ == State::start && !seen_any_) {
    state_ = State::done;  // an empty body is an empty object
    return sdk::Status::ok();
  }
  if (state_ != State::done) return fail("the body ended before the JSON object did");
  return sdk::Status::ok();
}

sdk::Status JsonBodyScanner::step(char c) {
  if (isSpace(c)) return sdk::Status::ok();
  seen_any_ = true;
  switch (state_) {
    case State::start:
      if (c != '{') return fail("the request body must be a JSON object");
      state_ = State::key_or_end;
      return sdk::Status::ok();
    case State::key_or_end:
    case State::key:
      if (c == '}' && state_ == State::key_or_end) {
        state_ = State::done;
        return sdk::Status::ok();
      }
      if (c != '"') return fail("expected a member name");
      str_ = Str::key;
      buf_.clear();
      return sdk::Status::ok();
    case State::colon:
      if (c != ':') return fail("expected ':' after a member name");
      state_ = State::value;
      return sdk::Status::ok();
    case State::value:
      if (c == '"') {
        kinds_[key_] = sdk::JsonKind::string;
        buf_.clear();
        str_ = std::find(streamed_.begin(), streamed_.end(), key_) != streamed_.end()
                   ? Str::streamed
                   : Str::kept;
        return sdk::Status::ok();
      }
      if (c == '{' || c == '[') {
        kinds_[key_] = c == '{' ? sdk::JsonKind::object : sdk::JsonKind::array;
        nest_.push_back(c == '{' ? '}' : ']');
        return sdk::Status::ok();
      }
      if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
        scalar_ = c;
        return sdk::Status::ok();
      }
      return fail("unexpected character in a value");
    case State::comma_or_end:
      if (c == ',') {
        state_ = State::key;
        return sdk::Status::ok();
      }
      if (c == '}') {
        state_ = State::done;
        return sdk::Status::ok();
      }
      return fail("expected ',' or '}'");
    case State::done:
      return fail("data after the JSON object");
  }
  return fail("internal state");
}

sdk::Status JsonBodyScanner::put(std::string_view piece) {
  if (str_ == Str::streamed) return on_chunk_(key_, piece, false);
  buf_.append(piece);
  if (buf_.size() > max_kept_) {
    error_ = sdk::Status::error(
        str_ == Str::key ? "Member name too long" : "Field '" + key_ + "' is too long",
        "ValueError");
    return error_;
  }
  return sdk::Status::ok();
}

sdk::Status JsonBodyScanner::stringChar(std::string_view bytes, std::size_t& i) {
  if (escape_) return escapeChar(bytes[i++]);
  if (high_surrogate_ && bytes[i] != '\\') return fail("unpaired surrogate in a \\u escape");
  // The run of bytes that need no attention, in one piece.
  std::size_t j = plainRunEnd(bytes, i);
  if (j > i) {
    auto s = put(bytes.substr(i, j - i));
    i = j;
    return s;
  }
  char c = bytes[i++];
  if (c == '\\') {
    escape_ = 1;
    return sdk::Status::ok();
  }
  if (c == '"') return endString();
  return fail("control character in a string");
}

sdk::Status JsonBodyScanner::escapeChar(char c) {
  if (escape_ == 1) {
    if (high_surrogate_ && c != 'u') return fail("unpaired surrogate in a \\u escape");
    char out;
    switch (c) {
      case '"':
        out = '"';
        break;
      case '\\':
        out = '\\';
        break;
      case '/':
        out = '/';
        break;
      case 'b':
        out = '\b';
        break;
      case 'f':
        out = '\f';
        break;
      case 'n':
        out = '\n';
        break;
      case 'r':
        out = '\r';
        break;
      case 't':
        out = '\t';
        break;
      case 'u':
        escape_ = 2;
        hex_ = 0;
        return sdk::Status::ok();
      default:
        return fail("invalid escape in a string");
    }
    escape_ = 0;
    return put(std::string_view(&out, 1));
  }
  int digit = hexValue(c);
  if (digit < 0) return fail("invalid \\u escape");
  hex_ = hex_ * 16 + static_cast<unsigned>(digit);
  if (++escape_ < 6) return sdk::Status::ok();
  escape_ = 0;
  if (high_surrogate_) {
    if (hex_ < 0xDC00 || hex_ > 0xDFFF) return fail("unpaired surrogate in a \\u escape");
    unsigned cp = 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (hex_ - 0xDC00);
    high_surrogate_ = 0;
    return putCodepoint(cp);
  }
  if (hex_ >= 0xD800 && hex_ <= 0xDBFF) {
    high_surrogate_ = hex_;
    return sdk::Status::ok();
  }
  if (hex_ >= 0xDC00 && hex_ <= 0xDFFF) {
    // Python's surrogateescape: a name that is not UTF-8 arrives as
    // \udc80-\udcff per raw byte; give the byte back.
    if (hex_ < 0xDC80) return fail("unpaired surrogate in a \\u escape");
    char raw = static_cast<char>(hex_ - 0xDC00);
    return put(std::string_view(&raw, 1));
  }
  return putCodepoint(hex_);
}

sdk::Status JsonBodyScanner::putCodepoint(unsigned cp) {
  char out[4];
  std::size_t n;
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    n = 1;
  } else if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 4;
  }
  return put(std::string_view(out, n));
}

sdk::Status JsonBodyScanner::endString() {
  if (high_surrogate_) return fail("unpaired surrogate in a \\u escape");
  Str kind = str_;
  str_ = Str::none;
  switch (kind) {
    case Str::key:
      if (kinds_.count(buf_)) {
        error_ = sdk::Status::error("Duplicate field '" + buf_ + "'", "ValueError");
        return error_;
      }
      key_ = std::move(buf_);
      buf_.clear();
      state_ = State::colon;
      return sdk::Status::ok();
    case Str::kept:
      strings_[key_] = std::move(buf_);
      buf_.clear();
      break;
    case Str::streamed:
      if (auto s = on_chunk_(key_, {}, true); !s) return s;
      break;
    default:
      break;
  }
  return memberDone();
}

sdk::Status JsonBodyScanner::memberDone() {
  state_ = State::comma_or_end;
  return sdk::Status::ok();
}

sdk::Status JsonBodyScanner::nestedChar(char c) {
  if (in_nested_string_) {
    if (nested_escape_)
      nested_escape_ = false;
    else if (c == '\\')
      nested_escape_ = true;
    else if (c == '"')
      in_nested_string_ = false;
    else if (static_cast<unsigned char>(c) < 0x20)
      return fail("control character in a string");
    return sdk::Status::ok();
  }
  switch (c) {
    case '"':
      in_nested_string_ = true;
      return sdk::Status::ok();
    case '{':
    case '[':
      if (nest_.size() >= 512) return fail("nesting too deep");
      nest_.push_back(c == '{' ? '}' : ']');
      return sdk::Status::ok();
    case '}':
    case ']':
      if (nest_.back() != c) return fail("mismatched brackets");
      nest_.pop_back();
      return nest_.empty() ? memberDone() : sdk::Status::ok();
    default:
      if (static_cast<unsigned char>(c) < 0x20 && !isSpace(c)) return fail("control character");
      return sdk::Status::ok();
  }
}

sdk::Status JsonBodyScanner::scalarChar(char c, bool& consumed) {
  if (isScalarChar(c)) {
    if (scalar_.size() >= 512) return fail("value too long");
    scalar_ += c;
    consumed = true;
    return sdk::Status::ok();
  }
  consumed = false;
  return endScalar();
}

sdk::Status JsonBodyScanner::endScalar() {
  std::string text = std::move(scalar_);
  scalar_.clear();
  bool integer = false;
  if (text == "true" || text == "false")
    kinds_[key_] = sdk::JsonKind::boolean;
  else if (text == "null")
    kinds_[key_] = sdk::JsonKind::null;
  else if (isJsonNumber(text, integer))
    kinds_[key_] = integer ? sdk::JsonKind::integer : sdk::JsonKind::number;
  else
    return fail("invalid value '" + text + "'");
  return memberDone();
}

}  // namespace abx::plugins::files
