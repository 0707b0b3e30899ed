#include "url_policy.h"

#include <arpa/inet.h>
#include <fnmatch.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace abx::plugins::browser {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool privateV4(const unsigned char* a) {
  return a[0] == 0 || a[0] == 10 || a[0] == 127 || (a[0] == 169 && a[1] == 254) ||
         (a[0] == 172 && (a[1] & 0xF0) == 16) || (a[0] == 192 && a[1] == 168) ||
         (a[0] == 100 && (a[1] & 0xC0) == 64) || (a[0] == 192 && a[1] == 0 && a[2] == 0) ||
         (a[0] == 198 && (a[1] & 0xFE) == 18) || a[0] >= 224;
}

}  // namespace

std::optional<UrlParts> parseUrl(std::string_view url) {
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  UrlParts parts;
  parts.scheme = lower(url.substr(0, colon));
  if (!std::all_of(parts.scheme.begin(), parts.scheme.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
      }))
    return std::nullopt;
  auto rest = url.substr(colon + 1);
  if (!rest.starts_with("//")) return parts;  // about:blank, data:, ...
  rest.remove_prefix(2);
  auto authority = rest.substr(0, rest.find_first_of("/?#"));
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.starts_with("[")) {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    parts.host = lower(authority.substr(1, close - 1));
  } else {
    parts.host = lower(authority.substr(0, authority.find(':')));
  }
  return parts;
}

bool urlMatches(const std::vector<std::string>& patterns, std::string_view url,
                const UrlParts& parts) {
  const std::string whole(url);
  for (const auto& pattern : patterns) {
    const bool full = pattern.find('/') != std::string::npos;
    const std::string& subject = full ? whole : parts.host;
    if (::fnmatch(full ? pattern.c_str() : lower(pattern).c_str(), subject.c_str(), 0) == 0)
      return true;
  }
  return false;
}

bool isPrivateAddress(std::string_view numeric_address) {
  const std::string text(numeric_address);
  unsigned char a[16];
  if (::inet_pton(AF_INET, text.c_str(), a) == 1) return privateV4(a);
  if (::inet_pton(AF_INET6, text.c_str(), a) != 1) return true;  // not an address: refuse
  static const unsigned char kZero[10] = {};
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible addresses.
  if (std::memcmp(a, kZero, 10) == 0 &&
      ((a[10] == 0xFF && a[11] == 0xFF) || (a[10] == 0 && a[11] == 0)))
    return privateV4(a + 12) || (a[10] == 0 && a[12] == 0);
  return (a[0] & 0xFE) == 0xFC                       // fc00::/7 unique local
         || (a[0] == 0xFE && (a[1] & 0xC0) == 0x80)  // fe80::/10 link local
         || a[0] == 0xFF                             // multicast
         || (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8);  // documentation
}

std::optional<UrlVerdict> checkUrl(std::string_view url, const sdk::Params& params) {
  auto parts = parseUrl(url);
  if (!parts) return UrlVerdict{400, "Invalid URL: " + std::string(url), {}};
  const bool blank = lower(url) == "about:blank";
  if (!blank && parts->scheme != "http" && parts->scheme != "https")
    return UrlVerdict{400,
                      "Unsupported URL scheme '" + parts->scheme +
                          "': only http, https and about:blank can be opened",
                      {}};
  if (!blank && parts->host.empty())
    return UrlVerdict{400, "URL has no host: " + std::string(url), {}};
  if (params.url_deny && urlMatches(*params.url_deny, url, *parts))
    return UrlVerdict{403, "URL denied by policy: " + std::string(url), "url_not_allowed"};
  if (params.url_allow && !urlMatches(*params.url_allow, url, *parts))
    return UrlVerdict{403, "URL not allowed by policy: " + std::string(url), "url_not_allowed"};
  if (!blank && params.block_private_networks.value_or(false)) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (::getaddrinfo(parts->host.c_str(), nullptr, &hints, &found) != 0 || !found)
      return UrlVerdict{403,
                        "Cannot resolve host " + parts->host + " (private networks are blocked)",
                        "url_not_allowed"};
    bool refused = false;
    for (addrinfo* ai = found; ai; ai = ai->ai_next) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* addr =
          ai->ai_family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
      if (!::inet_ntop(ai->ai_family, addr, text, sizeof text) || isPrivateAddress(text))
        refused = true;
    }
    ::freeaddrinfo(found);
    if (refused)
      return UrlVerdict{403, "URL points into a private network: " + std::string(url),
                        "url_not_allowed"};
  }
  return std::nullopt;
}

}  // namespace abx::plugins::browser
