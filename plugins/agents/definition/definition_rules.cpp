#include "definition/definition_rules.h"

#include <algorithm>
#include <array>

namespace abx::plugins::agents {
namespace {

bool isAlnum(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool hasControlOrSpace(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

bool hasControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The part after "scheme://" up to the first '/', minus any user info.
std::string_view urlHost(std::string_view rest) {
  auto authority = rest.substr(0, rest.find('/'));
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  return authority;
}

}  // namespace

bool isValidAgentName(std::string_view name) {
  return isValidRuntimeName(name) && name != "." && name != "..";
}

bool isValidRuntimeName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return isAlnum(c) || c == '.' || c == '_' || c == '-';
  });
}

bool isValidMcpServerName(std::string_view name) {
  return !name.empty() && name.size() <= 40 && std::all_of(name.begin(), name.end(), [](char c) {
    return isAlnum(c) || c == '_' || c == '-';
  });
}

bool isValidMcpToolName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return isAlnum(c) || c == '_' || c == '-';
  });
}

bool isValidEnvName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return isAlnum(c) || c == '_'; });
}

bool isValidHeaderName(std::string_view name) {
  static constexpr std::string_view kTokenPunctuation = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return isAlnum(c) || kTokenPunctuation.find(c) != std::string_view::npos;
  });
}

std::optional<std::string> envNameProblem(std::string_view name, EnvKind kind) {
  if (!isValidEnvName(name)) return "must match [A-Za-z_][A-Za-z0-9_]*";
  if (startsWith(name, "LD_") || startsWith(name, "DYLD_"))
    return std::string(name) + " is denied (dynamic loader variable)";
  if (startsWith(name, "ABX_"))
    return std::string(name) + " is denied (ABX_* variables belong to the server)";
  static constexpr std::array<std::string_view, 6> kShellHooks = {"BASH_ENV", "ENV", "SHELLOPTS",
                                                                  "BASHOPTS", "IFS", "GCONV_PATH"};
  if (std::find(kShellHooks.begin(), kShellHooks.end(), name) != kShellHooks.end())
    return std::string(name) + " is denied (it makes shells or libc load code)";
  if (name == "PATH" && kind == EnvKind::secret)
    return "PATH may be set only through env, never through secrets";
  return std::nullopt;
}

std::optional<std::string> gitUrlProblem(std::string_view url) {
  if (url.empty()) return "must not be empty";
  if (url[0] == '-') return "must not start with '-'";
  if (hasControlOrSpace(url)) return "must not contain whitespace or control characters";
  if (const auto sep = url.find("://"); sep != std::string_view::npos) {
    const auto scheme = url.substr(0, sep);
    if (scheme != "https" && scheme != "ssh" && scheme != "git")
      return "scheme must be https, ssh or git (got '" + std::string(scheme) + "')";
    if (urlHost(url.substr(sep + 3)).empty()) return "must name a host";
    return std::nullopt;
  }
  // scp-like ssh: user@host:path, with no '/' before the ':'.
  const auto at = url.find('@');
  const auto colon = url.find(':');
  const auto slash = url.find('/');
  if (at != std::string_view::npos && at > 0 && colon != std::string_view::npos && colon > at + 1 &&
      colon + 1 < url.size() && (slash == std::string_view::npos || slash > colon))
    return std::nullopt;
  return "must be an https://, ssh:// or git:// URL, or user@host:path";
}

std::optional<std::string> gitRefProblem(std::string_view ref) {
  if (ref.empty()) return "must not be empty";
  if (ref[0] == '-') return "must not start with '-'";
  if (hasControlOrSpace(ref)) return "must not contain whitespace or control characters";
  return std::nullopt;
}

std::optional<std::string> workspacePathProblem(std::string_view path) {
  if (path.empty() || path[0] != '/') return "must be an absolute path";
  if (hasControl(path)) return "must not contain control characters";
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return "must not contain '..' components";
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<std::string> httpUrlProblem(std::string_view url) {
  if (hasControlOrSpace(url)) return "must not contain whitespace or control characters";
  std::string_view rest;
  if (startsWith(url, "https://"))
    rest = url.substr(8);
  else if (startsWith(url, "http://"))
    rest = url.substr(7);
  else
    return "must be an http:// or https:// URL";
  if (urlHost(rest).empty()) return "must name a host";
  return std::nullopt;
}

std::optional<std::string> headerValueProblem(std::string_view value) {
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    return "must not contain CR, LF or NUL";
  return std::nullopt;
}

}  // namespace abx::plugins::agents
