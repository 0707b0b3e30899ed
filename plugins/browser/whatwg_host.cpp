// The URL Standard's host parser step by step (it decides where Chromium
// connects): IPv6, percent-decoding, UTS #46 ToASCII through ICU with
// Chromium's options, forbidden code points, and the IPv4 parser with every
// number form. The URL-level parser is whatwg_url.cpp.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "icu_idna.h"
#include "whatwg_url.h"

namespace abx::plugins::browser {
namespace {

sdk::Status invalid(std::string message) { return sdk::Status::error(message, "ValueError"); }

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hexValue(char c) { return isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }
char lowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

std::string percentDecode(std::string_view in) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && isHex(in[i + 1]) && isHex(in[i + 2])) {
      out += static_cast<char>(hexValue(in[i + 1]) * 16 + hexValue(in[i + 2]));
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

/** The URL Standard's "forbidden host code point". */
bool forbiddenHostByte(unsigned char c) {
  switch (c) {
    case 0x00:
    case 0x09:
    case 0x0A:
    case 0x0D:
    case ' ':
    case '#':
    case '/':
    case ':':
    case '<':
    case '>':
    case '?':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '|':
      return true;
    default:
      return false;
  }
}

/** "forbidden domain code point": the above, C0 controls, '%' and DEL. */
bool forbiddenDomainByte(unsigned char c) {
  return forbiddenHostByte(c) || c <= 0x1F || c == '%' || c == 0x7F;
}

/** UTS #46 ToASCII with the options Chromium passes to ICU (url_idna_icu). */
sdk::Result<std::string> idnToAscii(const std::string& domain) {
  std::string why;
  const IcuIdna* icu = icuIdna(&why);
  if (!icu) return invalid("IDN support (ICU) is unavailable: " + why);
  std::vector<char> out(domain.size() * 4 + 64);
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  UErrorCode error = U_ZERO_ERROR;
  const int32_t n = icu->nameToAscii(icu->idna, domain.data(), static_cast<int32_t>(domain.size()),
                                     out.data(), static_cast<int32_t>(out.size()), &info, &error);
  // Chromium ignores these for web compatibility.
  const uint32_t ignored = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG |
                           UIDNA_ERROR_DOMAIN_NAME_TOO_LONG | UIDNA_ERROR_LEADING_HYPHEN |
                           UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;
  if (U_FAILURE(error) || (info.errors & ~ignored) != 0 || n <= 0 ||
      static_cast<std::size_t>(n) > out.size())
    return invalid("Invalid internationalised host name");
  return std::string(out.data(), static_cast<std::size_t>(n));
}

/** The IPv4 number parser; nullopt on failure. Large values saturate (they fail later). */
std::optional<std::uint64_t> parseIpv4Number(std::string_view in) {
  if (in.empty()) return std::nullopt;
  int radix = 10;
  if (in.size() >= 2 && in[0] == '0' && (in[1] == 'x' || in[1] == 'X')) {
    in.remove_prefix(2);
    radix = 16;
  } else if (in.size() >= 2 && in[0] == '0') {
    in.remove_prefix(1);
    radix = 8;
  }
  std::uint64_t value = 0;
  for (char c : in) {
    int digit = -1;
    if (radix == 16 && isHex(c)) digit = hexValue(c);
    if (radix == 10 && isDigit(c)) digit = c - '0';
    if (radix == 8 && c >= '0' && c <= '7') digit = c - '0';
    if (digit < 0) return std::nullopt;
    value = std::min<std::uint64_t>(value * radix + digit, std::uint64_t(1) << 40);
  }
  return value;
}

std::vector<std::string_view> splitDots(std::string_view in) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = in.find('.', start);
    parts.push_back(in.substr(start, dot == std::string_view::npos ? in.npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

/** "ends in a number": such a host must parse as IPv4 or it is no host at all. */
bool endsInANumber(std::string_view in) {
  auto parts = splitDots(in);
  if (parts.back().empty()) {
    if (parts.size() == 1) return false;
    parts.pop_back();
  }
  const auto last = parts.back();
  if (!last.empty() && std::all_of(last.begin(), last.end(), isDigit)) return true;
  return parseIpv4Number(last).has_value();
}

std::string serializeIpv4(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
         std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
}

}  // namespace

bool isSpecialScheme(std::string_view s) {
  return s == "http" || s == "https" || s == "ws" || s == "wss" || s == "ftp" || s == "file";
}

std::optional<std::uint32_t> parseIpv4(std::string_view input) {
  auto parts = splitDots(input);
  if (parts.back().empty() && parts.size() > 1) parts.pop_back();
  if (parts.size() > 4) return std::nullopt;
  std::vector<std::uint64_t> numbers;
  for (auto part : parts) {
    auto n = parseIpv4Number(part);
    if (!n) return std::nullopt;
    numbers.push_back(*n);
  }
  for (std::size_t i = 0; i + 1 < numbers.size(); ++i)
    if (numbers[i] > 255) return std::nullopt;
  const std::uint64_t limit = std::uint64_t(1) << (8 * (5 - numbers.size()));
  if (numbers.back() >= limit) return std::nullopt;
  std::uint64_t address = numbers.back();
  for (std::size_t i = 0; i + 1 < numbers.size(); ++i) address += numbers[i] << (8 * (3 - i));
  return static_cast<std::uint32_t>(address);
}

std::optional<std::array<std::uint16_t, 8>> parseIpv6(std::string_view in) {
  std::array<std::uint16_t, 8> address{};
  int piece = 0;
  std::optional<int> compress;
  std::size_t p = 0;
  auto at = [&](std::size_t i) { return i < in.size() ? in[i] : '\0'; };
  if (at(p) == ':') {
    if (at(p + 1) != ':') return std::nullopt;
    p += 2;
    compress = ++piece;
  }
  while (p < in.size()) {
    if (piece == 8) return std::nullopt;
    if (at(p) == ':') {
      if (compress) return std::nullopt;
      ++p;
      compress = ++piece;
      continue;
    }
    unsigned value = 0;
    int length = 0;
    while (length < 4 && p < in.size() && isHex(at(p))) {
      value = value * 16 + static_cast<unsigned>(hexValue(at(p)));
      ++p;
      ++length;
    }
    if (at(p) == '.') {  // an embedded IPv4 address ends it
      if (length == 0 || piece > 6) return std::nullopt;
      p -= static_cast<std::size_t>(length);
      int seen = 0;
      while (p < in.size()) {
        if (seen > 0) {
          if (at(p) != '.' || seen >= 4) return std::nullopt;
          ++p;
        }
        if (!isDigit(at(p))) return std::nullopt;
        int part = -1;
        while (p < in.size() && isDigit(at(p))) {
          if (part == 0) return std::nullopt;  // no leading zeros
          part = (part < 0 ? 0 : part * 10) + (at(p) - '0');
          if (part > 255) return std::nullopt;
          ++p;
        }
        address[piece] = static_cast<std::uint16_t>(address[piece] * 0x100 + part);
        if (++seen == 2 || seen == 4) ++piece;
      }
      if (seen != 4) return std::nullopt;
      break;
    }
    if (at(p) == ':') {
      if (++p == in.size()) return std::nullopt;
    } else if (p < in.size()) {
      return std::nullopt;
    }
    address[piece++] = static_cast<std::uint16_t>(value);
  }
  if (compress) {
    int swaps = piece - *compress;
    piece = 7;
    while (piece != 0 && swaps > 0) {
      std::swap(address[piece], address[*compress + swaps - 1]);
      --piece;
      --swaps;
    }
  } else if (piece != 8) {
    return std::nullopt;
  }
  return address;
}

std::string serializeIpv6(const std::array<std::uint16_t, 8>& a) {
  int best = -1, best_len = 1;  // the first longest run of two or more zero pieces
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && a[j] == 0) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j == i ? i + 1 : j;
  }
  std::string out;
  char buffer[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += i == 0 ? "::" : ":";
      i += best_len - 1;
      continue;
    }
    std::snprintf(buffer, sizeof buffer, "%x", a[i]);
    out += buffer;
    if (i != 7) out += ':';
  }
  return out;
}

sdk::Result<ParsedHost> parseHost(std::string_view input, bool special) {
  ParsedHost host;
  if (input.starts_with('[')) {
    if (!input.ends_with(']')) return invalid("Unclosed IPv6 address in host");
    auto pieces = parseIpv6(input.substr(1, input.size() - 2));
    if (!pieces) return invalid("Invalid IPv6 address in host");
    host.kind = HostKind::ipv6;
    host.text = "[" + serializeIpv6(*pieces) + "]";
    for (int i = 0; i < 8; ++i) {
      host.address[2 * i] = static_cast<std::uint8_t>((*pieces)[i] >> 8);
      host.address[2 * i + 1] = static_cast<std::uint8_t>((*pieces)[i] & 255);
    }
    return host;
  }
  if (!special) {  // an opaque host: kept as written
    for (unsigned char c : input)
      if (forbiddenHostByte(c)) return invalid("Forbidden character in host");
    host.kind = input.empty() ? HostKind::none : HostKind::opaque;
    host.text = std::string(input);
    return host;
  }
  std::string domain = percentDecode(input);
  const bool ascii = std::all_of(domain.begin(), domain.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) {
    std::transform(domain.begin(), domain.end(), domain.begin(), lowerAscii);
  } else {
    auto mapped = idnToAscii(domain);
    if (!mapped) return mapped.status();
    domain = *std::move(mapped);
  }
  if (domain.empty()) return invalid("URL has an empty host");
  for (unsigned char c : domain)
    if (c >= 0x80 || forbiddenDomainByte(c)) return invalid("Forbidden character in host");
  if (endsInANumber(domain)) {
    auto v4 = parseIpv4(domain);
    if (!v4) return invalid("Invalid IPv4 address in host");
    host.kind = HostKind::ipv4;
    host.text = serializeIpv4(*v4);
    for (int i = 0; i < 4; ++i) host.address[i] = static_cast<std::uint8_t>(*v4 >> (24 - 8 * i));
    return host;
  }
  host.kind = HostKind::domain;
  host.text = std::move(domain);
  return host;
}

}  // namespace abx::plugins::browser
