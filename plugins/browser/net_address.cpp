#include "net_address.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <cstring>

namespace abx::plugins::browser {
namespace {

bool privateV4(const unsigned char* a) {
  return a[0] == 0 || a[0] == 10 || a[0] == 127 || (a[0] == 169 && a[1] == 254) ||
         (a[0] == 172 && (a[1] & 0xF0) == 16) || (a[0] == 192 && a[1] == 168) ||
         (a[0] == 100 && (a[1] & 0xC0) == 64) || (a[0] == 192 && a[1] == 0 && a[2] == 0) ||
         (a[0] == 192 && a[1] == 0 && a[2] == 2) || (a[0] == 198 && (a[1] & 0xFE) == 18) ||
         (a[0] == 198 && a[1] == 51 && a[2] == 100) || (a[0] == 203 && a[1] == 0 && a[2] == 113) ||
         a[0] >= 224;
}

bool privateV6(const unsigned char* a) {
  static const unsigned char kZero[12] = {};
  static const unsigned char kNat64[12] = {0, 0x64, 0xff, 0x9b};
  // IPv4-mapped, IPv4-compatible (and :: and ::1) and NAT64 carry an IPv4 address.
  if (std::memcmp(a, kZero, 10) == 0 &&
      ((a[10] == 0xFF && a[11] == 0xFF) || (a[10] == 0 && a[11] == 0)))
    return privateV4(a + 12) || (a[10] == 0 && a[12] == 0);
  if (std::memcmp(a, kNat64, 12) == 0) return privateV4(a + 12);
  if (a[0] == 0x20 && a[1] == 0x02) return privateV4(a + 2);  // 6to4
  return (a[0] & 0xFE) == 0xFC                                // fc00::/7 unique local
         || (a[0] == 0xFE && (a[1] & 0x80) == 0x80)           // fe80::/10 link, fec0::/10 site
         || a[0] == 0xFF                                      // multicast
         || (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8)  // documentation
         || (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0)        // Teredo
         || (a[0] == 0x01 && std::memcmp(a + 1, kZero, 7) == 0);            // 100::/64 discard
}

sockaddr_storage v4(const std::uint8_t* bytes, int port) {
  sockaddr_storage s{};
  auto* in = reinterpret_cast<sockaddr_in*>(&s);
  in->sin_family = AF_INET;
  in->sin_port = htons(static_cast<std::uint16_t>(port));
  std::memcpy(&in->sin_addr, bytes, 4);
  return s;
}

sockaddr_storage v6(const std::uint8_t* bytes, int port) {
  sockaddr_storage s{};
  auto* in = reinterpret_cast<sockaddr_in6*>(&s);
  in->sin6_family = AF_INET6;
  in->sin6_port = htons(static_cast<std::uint16_t>(port));
  std::memcpy(&in->sin6_addr, bytes, 16);
  return s;
}

}  // namespace

bool isPrivateAddress(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET)
    return privateV4(reinterpret_cast<const unsigned char*>(
        &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr));
  if (address.ss_family == AF_INET6)
    return privateV6(reinterpret_cast<const unsigned char*>(
        &reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr));
  return true;
}

bool isPrivateAddress(std::string_view numeric_address) {
  const std::string text(numeric_address);
  unsigned char a[16];
  if (::inet_pton(AF_INET, text.c_str(), a) == 1) return privateV4(a);
  if (::inet_pton(AF_INET6, text.c_str(), a) == 1) return privateV6(a);
  return true;  // not an address: refuse
}

bool isLocalhostName(std::string_view domain) {
  if (domain.ends_with('.')) domain.remove_suffix(1);
  return domain == "localhost" || domain.ends_with(".localhost");
}

std::string addressText(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw =
      address.ss_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&address)->sin_addr)
          : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr);
  if (!::inet_ntop(address.ss_family, raw, text, sizeof text)) return "?";
  return text;
}

sdk::Result<std::vector<sockaddr_storage>> resolveHost(const ParsedHost& host, int port) {
  if (host.kind == HostKind::ipv4) return std::vector{v4(host.address.data(), port)};
  if (host.kind == HostKind::ipv6) return std::vector{v6(host.address.data(), port)};
  if (host.kind != HostKind::domain)
    return sdk::Status::error("Cannot resolve host " + host.text, "OSError");
  if (isLocalhostName(host.text)) {
    static const std::uint8_t kLoop4[4] = {127, 0, 0, 1};
    static const std::uint8_t kLoop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::vector{v4(kLoop4, port), v6(kLoop6, port)};
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.text.c_str(), nullptr, &hints, &found);
  if (rc != 0 || !found)
    return sdk::Status::error(
        "Cannot resolve host " + host.text + ": " + (rc ? ::gai_strerror(rc) : "no address"),
        "OSError");
  std::vector<sockaddr_storage> out;
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET)
      out.push_back(v4(reinterpret_cast<const std::uint8_t*>(
                           &reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr),
                       port));
    else if (ai->ai_family == AF_INET6)
      out.push_back(v6(reinterpret_cast<const std::uint8_t*>(
                           &reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr),
                       port));
  }
  ::freeaddrinfo(found);
  if (out.empty()) return sdk::Status::error("Cannot resolve host " + host.text, "OSError");
  return out;
}

}  // namespace abx::plugins::browser
