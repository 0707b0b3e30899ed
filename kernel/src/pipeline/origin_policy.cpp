#include "pipeline/origin_policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace abx::kernel {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool allDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

/** 16 bytes of an IP literal (IPv4 as IPv4-mapped IPv6), or nullopt. */
std::optional<std::array<unsigned char, 16>> ipBytes(const std::string& text) {
  std::array<unsigned char, 16> out{};
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4, 4);
    return out;
  }
  if (::inet_pton(AF_INET6, text.c_str(), out.data()) == 1) return out;
  return std::nullopt;
}

bool isLoopback(const std::array<unsigned char, 16>& ip) {
  static constexpr std::array<unsigned char, 16> kV6Loopback = {0, 0, 0, 0, 0, 0, 0, 0,
                                                                0, 0, 0, 0, 0, 0, 0, 1};
  bool mapped = std::all_of(ip.begin(), ip.begin() + 10, [](unsigned char b) { return b == 0; }) &&
                ip[10] == 0xff && ip[11] == 0xff;
  return ip == kV6Loopback || (mapped && ip[12] == 127);
}

bool isWildcard(const std::string& host) {
  return host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]";
}

}  // namespace

OriginPolicy::OriginPolicy(std::string bind_host, std::vector<std::string> allowed_hosts,
                           std::vector<std::string> cors_origins)
    : names_{"localhost", "127.0.0.1", "::1"} {
  if (!isWildcard(bind_host)) names_.push_back(hostName(bind_host));
  for (const auto& name : allowed_hosts) {
    if (name == "*")
      any_host_ = true;
    else
      names_.push_back(hostName(name));
  }
  for (const auto& origin : cors_origins)
    if (auto normal = normaliseOrigin(origin)) cors_origins_.push_back(*normal);
}

void OriginPolicy::setPorts(int http_port, int pty_port) {
  http_port_.store(http_port, std::memory_order_relaxed);
  pty_port_.store(pty_port, std::memory_order_relaxed);
}

std::string OriginPolicy::hostName(std::string_view host) {
  while (!host.empty() && std::isspace(static_cast<unsigned char>(host.front())))
    host.remove_prefix(1);
  while (!host.empty() && std::isspace(static_cast<unsigned char>(host.back())))
    host.remove_suffix(1);
  std::string_view name = host;
  if (host.starts_with('[')) {
    name = host.substr(
        1, host.find(']') == std::string_view::npos ? host.size() - 1 : host.find(']') - 1);
  } else if (auto colon = host.find(':'); colon != std::string_view::npos &&
                                          host.find(':', colon + 1) == std::string_view::npos) {
    name = host.substr(0, colon);
  }
  std::string out = lower(name);
  if (out.size() > 1 && out.back() == '.') out.pop_back();
  return out;
}

std::optional<std::string> OriginPolicy::normaliseOrigin(std::string_view origin) {
  std::string text = lower(origin);
  if (text.ends_with('/')) text.pop_back();
  auto sep = text.find("://");
  if (sep == std::string::npos || sep == 0) return std::nullopt;
  std::string scheme = text.substr(0, sep);
  std::string authority = text.substr(sep + 3);
  if (authority.empty() || authority.find_first_of("/?#@\\ ") != std::string::npos)
    return std::nullopt;
  std::string host = authority;
  std::string port;
  auto bracket = authority.rfind(']');
  auto colon = authority.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (!allDigits(port)) return std::nullopt;
  }
  if (host.empty()) return std::nullopt;
  if ((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) port.clear();
  return scheme + "://" + host + (port.empty() ? "" : ":" + port);
}

bool OriginPolicy::namesServer(const std::string& host,
                               const std::function<std::string()>& local_address) const {
  if (std::find(names_.begin(), names_.end(), host) != names_.end()) return true;
  auto ip = ipBytes(host);
  if (!ip) return false;
  if (isLoopback(*ip)) return true;
  // An address literal cannot be rebound to another machine: it names this
  // server exactly when the connection arrived on it (a pod IP, say).
  auto local = local_address ? ipBytes(local_address()) : std::nullopt;
  return local && *local == *ip;
}

std::optional<ApiError> OriginPolicy::checkHost(
    std::optional<std::string_view> host, const std::function<std::string()>& local_address) const {
  // No Host at all is an HTTP/1.0 client, never a browser.
  if (any_host_ || !host) return std::nullopt;
  std::string name = hostName(*host);
  if (!name.empty() && namesServer(name, local_address)) return std::nullopt;
  ApiError e;
  e.status = 421;
  e.message = "Host '" + std::string(*host) +
              "' does not name this server; an operator can allow it with --allowed-host or "
              "ABX_SERVER_ALLOWED_HOSTS";
  e.type = "PermissionError";
  e.code = "host_not_allowed";
  e.close_connection = true;
  return e;
}

OriginPolicy::OriginKind OriginPolicy::classify(
    std::string_view origin, const std::function<std::string()>& local_address) const {
  auto normal = normaliseOrigin(origin);
  if (!normal) return OriginKind::foreign;
  if (std::find(cors_origins_.begin(), cors_origins_.end(), *normal) != cors_origins_.end())
    return OriginKind::cross;
  if (!normal->starts_with("http://")) return OriginKind::foreign;
  std::string authority = normal->substr(7);
  auto bracket = authority.rfind(']');
  auto colon = authority.rfind(':');
  int port = 80;
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    port = std::atoi(authority.c_str() + colon + 1);
    authority.resize(colon);
  }
  bool own_port = port == http_port_.load(std::memory_order_relaxed) ||
                  port == pty_port_.load(std::memory_order_relaxed);
  if (own_port && namesServer(hostName(authority), local_address)) return OriginKind::same;
  return OriginKind::foreign;
}

ApiError OriginPolicy::originError(std::string_view origin) {
  ApiError e;
  e.status = 403;
  e.message = "Origin '" + std::string(origin) +
              "' may not use this server; an operator can allow it with --cors-origin or "
              "ABX_SERVER_CORS_ORIGINS";
  e.type = "PermissionError";
  e.code = "origin_not_allowed";
  return e;
}

}  // namespace abx::kernel
