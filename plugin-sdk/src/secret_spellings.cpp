#include "abx/sdk/secret_spellings.h"

#include <algorithm>
#include <cctype>

namespace abx::sdk {
namespace {

constexpr char kUpperHex[] = "0123456789ABCDEF";
constexpr char kLowerHex[] = "0123456789abcdef";

bool isUriUnreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '!' || c == '~' || c == '*' ||
         c == '\'' || c == '(' || c == ')';
}

void appendU16(std::string& out, unsigned unit, const char* hex) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(unit >> shift) & 0xF];
}

// Decodes one UTF-8 sequence at @p i; an invalid byte decodes as itself (Latin-1) so no
// input is ever dropped.
unsigned decodeUtf8(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  const std::size_t extra = b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC0 ? 1 : 0;
  if (extra == 0 || i + extra >= s.size()) {
    ++i;
    return b0;
  }
  unsigned cp = b0 & (0x3Fu >> extra);
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return b0;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += extra + 1;
  return cp;
}

}  // namespace

std::string encodeUriComponent(std::string_view value) {
  std::string out;
  out.reserve(value.size() * 3);
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (isUriUnreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kUpperHex[c >> 4];
      out += kUpperHex[c & 0xF];
    }
  }
  return out;
}

std::string jsonEscape(std::string_view value, JsonEscapeStyle style) {
  const char* hex = style.uppercase_hex ? kUpperHex : kLowerHex;
  std::string out;
  out.reserve(value.size() + 8);
  std::size_t i = 0;
  while (i < value.size()) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80 && style.ascii_only) {
      const unsigned cp = decodeUtf8(value, i);
      if (cp >= 0x10000) {  // a surrogate pair, as JSON writes astral code points
        appendU16(out, 0xD800 + ((cp - 0x10000) >> 10), hex);
        appendU16(out, 0xDC00 + ((cp - 0x10000) & 0x3FF), hex);
      } else {
        appendU16(out, cp, hex);
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
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
      case '/':
        out += style.escape_slash ? "\\/" : "/";
        break;
      default:
        if (c < 0x20 || c == 0x7F)
          appendU16(out, c, hex);
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::vector<std::string> secretSpellings(std::string_view secret) {
  std::vector<std::string> out;
  auto add = [&](std::string s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  };
  add(std::string(secret));
  const std::string uri = encodeUriComponent(secret);
  add(uri);
  std::string lower_uri = uri;  // percent-encoders that write lowercase hex (RFC 3986 allows both)
  for (std::size_t i = 0; i < lower_uri.size(); ++i)
    if (lower_uri[i] == '%' && i + 2 < lower_uri.size()) {
      lower_uri[i + 1] =
          static_cast<char>(std::tolower(static_cast<unsigned char>(lower_uri[i + 1])));
      lower_uri[i + 2] =
          static_cast<char>(std::tolower(static_cast<unsigned char>(lower_uri[i + 2])));
      i += 2;
    }
  add(lower_uri);
  for (bool slash : {false, true})
    for (bool upper : {false, true})
      for (bool ascii : {false, true}) add(jsonEscape(secret, {slash, upper, ascii}));
  return out;
}

}  // namespace abx::sdk
