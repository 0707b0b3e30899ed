#include "ws_http.h"

#include <Poco/Base64Encoder.h>
#include <Poco/SHA1Engine.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace abx::plugins::terminal {
namespace {

constexpr std::string_view kWebSocketGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lower(x) == lower(y); });
}

// RFC 9110 token characters (method and field names).
bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/** The next line of @p rest (without its "\r\n" or "\n"); advances @p rest. */
std::string_view nextLine(std::string_view& rest) {
  const auto nl = rest.find('\n');
  auto line = rest.substr(0, nl);
  rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

/** True when the comma-separated list @p value holds @p token (case-insensitive). */
bool listHas(std::string_view value, std::string_view token) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto end = std::min(value.find(',', start), value.size());
    if (iequals(trim(value.substr(start, end - start)), token)) return true;
    start = end + 1;
  }
  return false;
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 101:
      return "Switching Protocols";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 421:
      return "Misdirected Request";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return status >= 500 ? "Internal Server Error" : "Bad Request";
  }
}

HeadError bad(std::string message, int status = 400) {
  return HeadError{status, std::move(message)};
}

}  // namespace

std::optional<std::string_view> HandshakeHead::header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return value;
  return std::nullopt;
}

std::size_t headEnd(std::string_view bytes) {
  for (std::size_t i = bytes.find('\n'); i != std::string_view::npos; i = bytes.find('\n', i + 1)) {
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

std::variant<HandshakeHead, HeadError> parseHandshakeHead(std::string_view head) {
  HandshakeHead out;
  std::string_view rest = head;
  // Robustness (RFC 9112 §2.2): empty lines before the request line are ignored.
  std::string_view line;
  do {
    line = nextLine(rest);
  } while (line.empty() && !rest.empty());
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return bad("Malformed request line");
  const auto method = line.substr(0, sp1);
  const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const auto version = line.substr(sp2 + 1);
  if (!isToken(method)) return bad("Malformed request method");
  if (target.empty() || std::any_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
      }))
    return bad("Malformed request target");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return version.starts_with("HTTP/") ? bad("HTTP version not supported", 505)
                                        : bad("Malformed request line");
  out.method = std::string(method);
  out.target = std::string(target);

  while (!rest.empty()) {
    line = nextLine(rest);
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t')
      return bad("Obsolete line folding is not accepted");
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon)))
      return bad("Malformed header field");
    const auto value = trim(line.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](char c) { return c == '\0' || c == '\r'; }))
      return bad("Malformed header value");
    if (out.headers.size() >= kMaxHeaderFields) return bad("Too many header fields", 431);
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), lower);
    out.headers.emplace_back(std::move(name), std::string(value));
  }
  return out;
}

UpgradeCheck checkUpgrade(const HandshakeHead& head) {
  UpgradeCheck check;
  bool connection_upgrade = false;
  for (const auto& [name, value] : head.headers)
    if (name == "connection" && listHas(value, "upgrade")) connection_upgrade = true;
  check.websocket = connection_upgrade && iequals(head.header("upgrade").value_or(""), "websocket");
  if (!check.websocket) return check;
  const auto version = head.header("sec-websocket-version").value_or("");
  if (version.empty())
    check.error = "Missing Sec-WebSocket-Version in handshake request";
  else if (version != "13")
    check.error = "Unsupported WebSocket version requested: " + std::string(version);
  else if (check.key = std::string(head.header("sec-websocket-key").value_or(""));
           check.key.empty())
    check.error = "Missing Sec-WebSocket-Key in handshake request";
  return check;
}

std::string webSocketAccept(std::string_view key) {
  Poco::SHA1Engine sha1;
  sha1.update(key.data(), static_cast<unsigned>(key.size()));
  sha1.update(kWebSocketGuid.data(), static_cast<unsigned>(kWebSocketGuid.size()));
  const auto& digest = sha1.digest();
  std::ostringstream out;
  Poco::Base64Encoder base64(out);
  base64.write(reinterpret_cast<const char*>(digest.data()),
               static_cast<std::streamsize>(digest.size()));
  base64.close();
  return out.str();
}

std::string switchingProtocols(std::string_view key) {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Accept: " +
         webSocketAccept(key) + "\r\n\r\n";
}

std::string httpAnswer(const sdk::Response& response) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += reasonPhrase(response.status);
  out += "\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  out += response.body;
  return out;
}

}  // namespace abx::plugins::terminal
