// The URL Standard's basic URL parser for absolute URLs (no base), as
// Chromium runs it: the input is trimmed and stripped of tabs and newlines,
// special schemes skip any run of `/` and `\` before the authority, the
// authority ends at `/`, `\`, `?` or `#`, the last `@` ends the userinfo, and
// the path's dot segments are resolved. Percent-encoding follows the
// standard's sets, which is what Chromium sends (whole-URL globs see that).
#include "whatwg_url.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "abx/sdk/http_head.h"

namespace abx::plugins::browser {
namespace {

sdk::Status invalid(std::string message) { return sdk::Status::error(message, "ValueError"); }

bool isAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isAsciiAlnum(char c) { return isAsciiAlpha(c) || (c >= '0' && c <= '9'); }

int defaultPort(std::string_view scheme) {
  if (scheme == "http" || scheme == "ws") return 80;
  if (scheme == "https" || scheme == "wss") return 443;
  if (scheme == "ftp") return 21;
  return -1;
}

enum class EncodeSet { fragment, query, path, userinfo };

bool mustEncode(unsigned char c, EncodeSet set) {
  if (c <= 0x20 || c >= 0x7F) return true;  // C0 controls, space, DEL, non-ASCII
  switch (set) {
    case EncodeSet::fragment:
      return c == '"' || c == '<' || c == '>' || c == '`';
    case EncodeSet::query:
      return c == '"' || c == '#' || c == '<' || c == '>' || c == '\'';
    case EncodeSet::path:  // the standard's set plus '|' and '^', which Chromium escapes too
      return c == '"' || c == '#' || c == '<' || c == '>' || c == '?' || c == '`' || c == '{' ||
             c == '}' || c == '|' || c == '^';
    case EncodeSet::userinfo:
      return mustEncode(c, EncodeSet::path) || c == '/' || c == ':' || c == ';' || c == '=' ||
             c == '@' || c == '[' || c == '\\' || c == ']';
  }
  return false;
}

std::string encode(std::string_view in, EncodeSet set) {
  std::string out;
  char buffer[4];
  for (unsigned char c : in) {
    if (mustEncode(c, set)) {
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

using sdk::equalsIgnoreCase;

bool isSingleDot(std::string_view s) { return s == "." || equalsIgnoreCase(s, "%2e"); }
bool isDoubleDot(std::string_view s) {
  return s == ".." || equalsIgnoreCase(s, ".%2e") || equalsIgnoreCase(s, "%2e.") ||
         equalsIgnoreCase(s, "%2e%2e");
}

/** A special URL's path: `\` is `/`, dot segments resolved, the path set encoded. */
std::string canonicalPath(std::string_view in) {
  std::vector<std::string> segments;
  if (!in.empty() && (in[0] == '/' || in[0] == '\\')) in.remove_prefix(1);
  std::size_t start = 0;
  while (true) {
    std::size_t end = in.find_first_of("/\\", start);
    const bool last = end == std::string_view::npos;
    const auto segment = in.substr(start, last ? in.npos : end - start);
    if (isDoubleDot(segment)) {
      if (!segments.empty()) segments.pop_back();
      if (last) segments.emplace_back();
    } else if (isSingleDot(segment)) {
      if (last) segments.emplace_back();
    } else {
      segments.push_back(encode(segment, EncodeSet::path));
    }
    if (last) break;
    start = end + 1;
  }
  std::string path;
  for (const auto& s : segments) path += "/" + s;
  return path.empty() ? "/" : path;
}

/** Splits "host[:port]" at the first ':' outside brackets. */
sdk::Status splitHostPort(std::string_view authority, const std::string& scheme,
                          std::string_view& host, std::optional<int>& port) {
  bool in_brackets = false;
  std::size_t colon = std::string_view::npos;
  for (std::size_t i = 0; i < authority.size() && colon == authority.npos; ++i) {
    if (authority[i] == '[') in_brackets = true;
    if (authority[i] == ']') in_brackets = false;
    if (authority[i] == ':' && !in_brackets) colon = i;
  }
  host = authority.substr(0, colon);
  port.reset();
  if (colon == std::string_view::npos) return sdk::Status::ok();
  const auto digits = authority.substr(colon + 1);
  long value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return invalid("Invalid port in URL");
    value = value * 10 + (c - '0');
    if (value > 65535) return invalid("Port out of range in URL");
  }
  if (!digits.empty() && value != defaultPort(scheme)) port = static_cast<int>(value);
  return sdk::Status::ok();
}

/** Trims C0 controls and spaces at both ends and removes every tab and newline. */
std::string cleanInput(std::string_view input) {
  while (!input.empty() && static_cast<unsigned char>(input.front()) <= 0x20)
    input.remove_prefix(1);
  while (!input.empty() && static_cast<unsigned char>(input.back()) <= 0x20) input.remove_suffix(1);
  std::string out;
  for (char c : input)
    if (c != '\t' && c != '\n' && c != '\r') out += c;
  return out;
}

}  // namespace

std::string ParsedUrl::href() const {
  if (!special) return scheme + ":" + path;
  std::string out = scheme + "://";
  if (!username.empty() || !password.empty())
    out += username + (password.empty() ? "" : ":" + password) + "@";
  out += host.text;
  if (port) out += ":" + std::to_string(*port);
  out += path;
  if (query) out += "?" + *query;
  if (fragment) out += "#" + *fragment;
  return out;
}

int ParsedUrl::effectivePort() const { return port ? *port : defaultPort(scheme); }

sdk::Result<ParsedUrl> parseUrl(std::string_view raw) {
  const std::string input = cleanInput(raw);
  std::string_view rest = input;
  const auto colon = rest.find(':');
  if (colon == 0 || colon == std::string_view::npos || !isAsciiAlpha(rest[0]))
    return invalid("URL has no scheme");
  ParsedUrl url;
  for (char c : rest.substr(0, colon)) {
    if (!isAsciiAlnum(c) && c != '+' && c != '-' && c != '.')
      return invalid("Invalid character in URL scheme");
    url.scheme += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  rest.remove_prefix(colon + 1);
  url.special = isSpecialScheme(url.scheme);
  if (!url.special || url.scheme == "file") {  // never opened: only the scheme matters
    url.special = false;
    url.path = std::string(rest);
    return url;
  }
  while (!rest.empty() && (rest.front() == '/' || rest.front() == '\\')) rest.remove_prefix(1);
  const auto authority_end = rest.find_first_of("/\\?#");
  auto authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const auto userinfo = authority.substr(0, at);
    const auto split = userinfo.find(':');
    url.username = encode(userinfo.substr(0, split), EncodeSet::userinfo);
    if (split != std::string_view::npos)
      url.password = encode(userinfo.substr(split + 1), EncodeSet::userinfo);
    authority.remove_prefix(at + 1);
  }
  std::string_view host_text;
  if (auto s = splitHostPort(authority, url.scheme, host_text, url.port); !s) return s;
  if (host_text.empty()) return invalid("URL has no host");
  if (host_text.find('*') != std::string_view::npos)  // Chromium escapes it; no real host has one
    return invalid("Forbidden character in host");
  auto host = parseHost(host_text, true);
  if (!host) return host.status();
  url.host = *std::move(host);
  const auto fragment_at = rest.find('#');
  if (fragment_at != std::string_view::npos) {
    url.fragment = encode(rest.substr(fragment_at + 1), EncodeSet::fragment);
    rest = rest.substr(0, fragment_at);
  }
  const auto query_at = rest.find('?');
  if (query_at != std::string_view::npos) {
    url.query = encode(rest.substr(query_at + 1), EncodeSet::query);
    rest = rest.substr(0, query_at);
  }
  url.path = canonicalPath(rest);
  return url;
}

}  // namespace abx::plugins::browser
