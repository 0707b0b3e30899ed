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

/** Decodes the JSON string body at @p pos (after its opening quote); @p pos ends after the
 *  closing quote. false on anything a strict parser would reject. */
bool decodeString(std::string_view s, std::size_t& pos, std::string& out) {
  while (pos < s.size()) {
    char c = s[pos++];
    if (c == '"') return true;
    if (static_cast<unsigned char>(c) < 0x20) return false;
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

}  // namespace

std::optional<StreamDelta> scanStreamDelta(std::string_view line) {
  constexpr std::string_view kHead = R"({"type":"stream_event",)";
  constexpr std::string_view kEvent = R"("event":{"type":"content_block_delta","index":)";
  constexpr std::string_view kText = R"(,"delta":{"type":"text_delta","text":")";
  constexpr std::string_view kThinking = R"(,"delta":{"type":"thinking_delta","thinking":")";
  if (!line.starts_with(kHead) || !line.ends_with('}')) return std::nullopt;
  // Outside strings every quote is structural, so this finds the real key.
  auto pos = line.find(kEvent, kHead.size());
  if (pos == std::string_view::npos) return std::nullopt;
  pos += kEvent.size();
  const auto digits = pos;
  while (pos < line.size() && line[pos] >= '0' && line[pos] <= '9') ++pos;
  if (pos == digits) return std::nullopt;

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
  return delta;
}

}  // namespace abx::plugins::adapters
