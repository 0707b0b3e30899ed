// scanStreamDelta(): the fast path for stream-json text/thinking deltas.
#include "stream_delta_scan.h"

#include <cstdint>

namespace abx::plugins::adapters {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool readHex4(std::string_view s, std::size_t at, std::uint32_t& out) {
  if (at + 4 > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    int v = hexValue(s[i]);
    if (v < 0) return false;
    out = out * 16 + static_cast<std::uint32_t>(v);
  }
  return true;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/** The length of the well-formed UTF-8 sequence at @p at (as the SDK's JSON parser takes
 *  it: no overlong form, surrogate or code point past U+10FFFF), 0 when there is none. */
std::size_t utf8Sequence(std::string_view s, std::size_t at) {
  const auto c = static_cast<unsigned char>(s[at]);
  const std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || at + len > s.size()) return 0;
  std::uint32_t cp = c & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[at + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

/** Decodes the JSON string body at @p pos (after its opening quote); @p pos ends after the
 *  closing quote. false on anything a strict parser would reject. */
bool decodeString(std::string_view s, std::size_t& pos, std::string& out) {
  while (pos < s.size()) {
    char c = s[pos++];
    if (c == '"') return true;
    if (static_cast<unsigned char>(c) < 0x20) return false;
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t len = utf8Sequence(s, pos - 1);
      if (len == 0) return false;
      out.append(s.substr(pos - 1, len));
      pos += len - 1;
      continue;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos >= s.size()) return false;
    char e = s[pos++];
    switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::uint32_t cp = 0;
        if (!readHex4(s, pos, cp)) return false;
        pos += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          std::uint32_t low = 0;
          if (s.substr(pos, 2) != "\\u" || !readHex4(s, pos + 2, low) || low < 0xDC00 ||
              low > 0xDFFF)
            return false;
          pos += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return false;
    }
  }
  return false;
}

/** Reads one scalar JSON value at @p pos: a string, null, true, false or an integer. false on
 *  anything else (valid or not: the full parse decides). */
bool skipScalar(std::string_view s, std::size_t& pos) {
  if (pos >= s.size()) return false;
  if (s[pos] == '"') {
    std::string ignored;
    return decodeString(s, ++pos, ignored);
  }
  for (std::string_view word : {"null", "true", "false"})
    if (s.substr(pos, word.size()) == word) return pos += word.size(), true;
  if (s[pos] == '-') ++pos;
  const auto digits = pos;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  return pos > digits && (s[digits] != '0' || pos == digits + 1);
}

/** Reads `"key":scalar` at @p pos; false when it is anything else or its key is @p taken1 or
 *  @p taken2 (a repeated key would make the full parse read another value). */
bool skipMember(std::string_view s, std::size_t& pos, std::string_view taken1,
                std::string_view taken2) {
  if (pos >= s.size() || s[pos] != '"') return false;
  std::string key;
  if (!decodeString(s, ++pos, key) || key == taken1 || key == taken2) return false;
  if (pos >= s.size() || s[pos++] != ':') return false;
  return skipScalar(s, pos);
}

}  // namespace

std::optional<StreamDelta> scanStreamDelta(std::string_view line) {
  constexpr std::string_view kHead = R"({"type":"stream_event",)";
  constexpr std::string_view kEvent = R"("event":{"type":"content_block_delta","index":)";
  constexpr std::string_view kText = R"(,"delta":{"type":"text_delta","text":")";
  constexpr std::string_view kThinking = R"(,"delta":{"type":"thinking_delta","thinking":")";
  if (!line.starts_with(kHead) || !line.ends_with('}')) return std::nullopt;
  // The members around "event" are checked too (scalars only, no second
  // "type" or "event"): a line the full parse refuses must not get through here.
  auto pos = kHead.size();
  while (!line.substr(pos).starts_with(kEvent))
    if (!skipMember(line, pos, "type", "event") || pos >= line.size() || line[pos++] != ',')
      return std::nullopt;
  pos += kEvent.size();
  const auto digits = pos;
  while (pos < line.size() && line[pos] >= '0' && line[pos] <= '9') ++pos;
  if (pos == digits || (line[digits] == '0' && pos > digits + 1)) return std::nullopt;

  StreamDelta delta;
  auto rest = line.substr(pos);
  if (rest.starts_with(kText)) {
    pos += kText.size();
  } else if (rest.starts_with(kThinking)) {
    delta.thinking = true;
    pos += kThinking.size();
  } else {
    return std::nullopt;
  }
  if (!decodeString(line, pos, delta.text)) return std::nullopt;
  if (line.substr(pos, 2) != "}}") return std::nullopt;
  pos += 2;
  while (pos + 1 < line.size())
    if (line[pos++] != ',' || !skipMember(line, pos, "type", "event")) return std::nullopt;
  if (pos + 1 != line.size()) return std::nullopt;
  return delta;
}

}  // namespace abx::plugins::adapters
