// sdk::base64* and sdk::percent* (see abx/sdk/text_codecs.h).
#include "abx/sdk/text_codecs.h"

#include <array>
#include <cctype>
#include <cstdint>

namespace abx::sdk {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Both alphabets at once: '+' and '-' are 62, '/' and '_' are 63; -1 is not base64.
constexpr std::array<std::int8_t, 256> decodingTable() {
  std::array<std::int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i)
    t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  t['-'] = 62;
  t['_'] = 63;
  return t;
}
constexpr auto kDecoding = decodingTable();

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = static_cast<unsigned char>(bytes[i]) << 16 |
                            static_cast<unsigned char>(bytes[i + 1]) << 8 |
                            static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(n >> shift) & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  std::uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
  if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
  out += kAlphabet[(n >> 18) & 63];
  out += kAlphabet[(n >> 12) & 63];
  out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
  out += '=';
  return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
  std::size_t padding = 0;
  while (padding < text.size() && padding < 2 && text[text.size() - 1 - padding] == '=') ++padding;
  if (padding > 0 && text.size() % 4 != 0) return std::nullopt;  // padded, so whole quads
  text.remove_suffix(padding);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int v = kDecoding[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    bits = bits << 6 | static_cast<std::uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>(bits >> 8 & 0xff);
      out += static_cast<char>(bits & 0xff);
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) {
    if (bits & 0xf) return std::nullopt;  // unused low bits must be zero
    out += static_cast<char>(bits >> 4);
  } else if (count == 3) {
    if (bits & 0x3) return std::nullopt;
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>(bits >> 2 & 0xff);
  }
  return out;
}

std::string percentEncode(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(in.size());
  for (unsigned char c : in) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool percentDecode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    const int hi = i + 2 < in.size() ? hexValue(in[i + 1]) : -1;
    const int lo = hi >= 0 ? hexValue(in[i + 2]) : -1;
    if (lo < 0) return false;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

std::optional<std::vector<std::pair<std::string, std::string>>> decodeQuery(
    std::string_view query) {
  auto component = [](std::string_view in, std::string& out) {
    std::string plus(in);
    for (auto& c : plus)
      if (c == '+') c = ' ';
    return percentDecode(plus, out);
  };
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    std::string name, value;
    if (!component(pair.substr(0, eq), name) ||
        (eq != std::string_view::npos && !component(pair.substr(eq + 1), value)))
      return std::nullopt;
    pairs.emplace_back(std::move(name), std::move(value));
  }
  return pairs;
}

}  // namespace abx::sdk
