#include "ws_url.h"

#include <algorithm>
#include <cctype>

namespace abx::plugins::terminal {
namespace {

bool nameChars(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
  });
}

bool ipv6Chars(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
  });
}

}  // namespace

std::string urlHost(std::optional<std::string_view> host_header, std::string_view bind_host) {
  if (host_header) {
    std::string_view h = *host_header;
    if (h.starts_with('[')) {
      auto close = h.find(']');
      if (close != std::string_view::npos && ipv6Chars(h.substr(1, close - 1)))
        return std::string(h.substr(0, close + 1));
    } else {
      auto colon = h.find(':');
      std::string_view name = h.substr(0, colon);
      if (nameChars(name)) return std::string(name);
    }
  }
  if (bind_host.empty() || bind_host == "0.0.0.0" || bind_host == "::") return "localhost";
  if (bind_host.find(':') != std::string_view::npos) return "[" + std::string(bind_host) + "]";
  return std::string(bind_host);
}

std::string wsUrl(std::string_view host, int port, std::string_view session_id,
                  std::string_view ticket) {
  std::string url = "ws://";
  url += host;
  url += ':';
  url += std::to_string(port);
  url += "/pty?session_id=";
  url += session_id;  // hex: nothing to escape
  if (!ticket.empty()) {
    url += "&ticket=";
    url += ticket;
  }
  return url;
}

}  // namespace abx::plugins::terminal
