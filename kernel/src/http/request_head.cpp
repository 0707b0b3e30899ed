#include "http/request_head.h"

#include <algorithm>
#include <cctype>

namespace abx::kernel {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// RFC 9110 token characters (method and field names).
bool isTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), isTokenChar);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/** The next line of @p rest (without its "\r\n" or "\n"); advances @p rest. */
std::string_view nextLine(std::string_view& rest) {
  auto nl = rest.find('\n');
  auto line = rest.substr(0, nl);
  rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

HeadError bad(std::string message, int status = 400) {
  return HeadError{status, std::move(message)};
}

}  // namespace

std::vector<std::string_view> RequestHead::values(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) out.emplace_back(v);
  return out;
}

bool RequestHead::keepAlive() const {
  bool close = false, keep = false;
  for (auto value : values("Connection")) {
    // A comma list of options.
    std::size_t start = 0;
    while (start <= value.size()) {
      auto end = std::min(value.find(',', start), value.size());
      auto option = trim(value.substr(start, end - start));
      close = close || iequals(option, "close");
      keep = keep || iequals(option, "keep-alive");
      start = end + 1;
    }
  }
  return minor_version >= 1 ? !close : keep && !close;
}

std::size_t headEnd(std::string_view bytes) {
  // Either line ending, as parseRequestHead accepts both.
  for (std::size_t i = bytes.find('\n'); i != std::string_view::npos; i = bytes.find('\n', i + 1)) {
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

std::pair<std::optional<RequestHead>, HeadError> parseRequestHead(std::string_view head) {
  RequestHead out;
  std::string_view rest = head;
  // Robustness (RFC 9112 §2.2): empty lines before the request line are ignored.
  std::string_view line;
  do {
    line = nextLine(rest);
  } while (line.empty() && !rest.empty());
  auto sp1 = line.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return {std::nullopt, bad("Malformed request line")};
  auto method = line.substr(0, sp1);
  auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  auto version = line.substr(sp2 + 1);
  if (!isToken(method)) return {std::nullopt, bad("Malformed request method")};
  if (target.empty() || std::any_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
      }))
    return {std::nullopt, bad("Malformed request target")};
  if (target.size() > 16 * 1024) return {std::nullopt, bad("Request target too long", 414)};
  if (version == "HTTP/1.1")
    out.minor_version = 1;
  else if (version == "HTTP/1.0")
    out.minor_version = 0;
  else if (version.starts_with("HTTP/"))
    return {std::nullopt, bad("HTTP version not supported", 505)};
  else
    return {std::nullopt, bad("Malformed request line")};
  out.method = std::string(method);
  out.target = std::string(target);

  while (!rest.empty()) {
    line = nextLine(rest);
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t')
      return {std::nullopt, bad("Obsolete line folding is not accepted")};
    auto colon = line.find(':');
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon)))
      return {std::nullopt, bad("Malformed header field")};
    auto value = trim(line.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](char c) { return c == '\0' || c == '\r'; }))
      return {std::nullopt, bad("Malformed header value")};
    if (out.headers.size() >= kMaxHeaderFields)
      return {std::nullopt, bad("Too many header fields", 431)};
    out.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  if (out.values("Content-Length").size() > 1)
    return {std::nullopt, bad("Several Content-Length fields")};
  return {std::move(out), HeadError{}};
}

}  // namespace abx::kernel
