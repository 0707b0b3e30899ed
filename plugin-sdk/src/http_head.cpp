#include "abx/sdk/http_head.h"

#include <algorithm>
#include <cctype>

namespace abx::sdk {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

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

HeadError bad(std::string message, int status = 400) {
  return HeadError{status, std::move(message)};
}

/** The request line into @p out; an error when it is malformed. */
std::optional<HeadError> parseRequestLine(std::string_view line, RequestHead& out) {
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
  if (target.size() > kMaxRequestTarget) return bad("Request target too long", 414);
  if (version == "HTTP/1.1")
    out.minor_version = 1;
  else if (version == "HTTP/1.0")
    out.minor_version = 0;
  else if (version.starts_with("HTTP/"))
    return bad("HTTP version not supported", 505);
  else
    return bad("Malformed request line");
  out.method = std::string(method);
  out.target = std::string(target);
  return std::nullopt;
}

}  // namespace

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lower(x) == lower(y); });
}

std::vector<std::string_view> RequestHead::values(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : headers)
    if (equalsIgnoreCase(k, name)) out.emplace_back(v);
  return out;
}

std::optional<std::string_view> RequestHead::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (equalsIgnoreCase(k, name)) return std::string_view(v);
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> RequestHead::lowerCaseHeaders() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(headers.size());
  for (auto [name, value] : headers) {
    std::transform(name.begin(), name.end(), name.begin(), lower);
    out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

bool RequestHead::listHas(std::string_view name, std::string_view token) const {
  for (auto value : values(name)) {
    std::size_t start = 0;
    while (start <= value.size()) {
      const auto end = std::min(value.find(',', start), value.size());
      if (equalsIgnoreCase(trim(value.substr(start, end - start)), token)) return true;
      start = end + 1;
    }
  }
  return false;
}

bool RequestHead::keepAlive() const {
  if (listHas("Connection", "close")) return false;
  return minor_version >= 1 || listHas("Connection", "keep-alive");
}

std::size_t headEnd(std::string_view bytes) {
  // Either line ending, as parseRequestHead accepts both.
  for (std::size_t i = bytes.find('\n'); i != std::string_view::npos; i = bytes.find('\n', i + 1)) {
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

std::variant<RequestHead, HeadError> parseRequestHead(std::string_view head,
                                                      std::size_t max_fields) {
  RequestHead out;
  std::string_view rest = head;
  // Robustness (RFC 9112 §2.2): empty lines before the request line are ignored.
  std::string_view line;
  do {
    line = nextLine(rest);
  } while (line.empty() && !rest.empty());
  if (auto error = parseRequestLine(line, out)) return std::move(*error);

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
    if (out.headers.size() >= max_fields) return bad("Too many header fields", 431);
    out.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  if (out.values("Content-Length").size() > 1) return bad("Several Content-Length fields");
  return out;
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 101:
      return "Switching Protocols";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
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
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 421:
      return "Misdirected Request";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return status < 400 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

}  // namespace abx::sdk
