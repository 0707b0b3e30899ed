#include "env_rules.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "env_protection.h"
#include "system_vocabulary.h"

namespace abx::plugins::system {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

EnvRefusal refuse(int status, std::string message, std::string type = "ValueError",
                  std::string code = {}) {
  return EnvRefusal{status, std::move(message), std::move(type), std::move(code)};
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

}  // namespace

bool isSensitiveName(std::string_view name) {
  std::string upper(name);
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return std::any_of(
      std::begin(kSensitiveTokens), std::end(kSensitiveTokens),
      [&](std::string_view token) { return upper.find(token) != std::string::npos; });
}

bool isProtectedName(std::string_view name) {
  return std::find(std::begin(kProtectedNames), std::end(kProtectedNames), name) !=
         std::end(kProtectedNames);
}

bool isValidName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::optional<std::set<std::string, std::less<>>> parseFilter(
    std::optional<std::string_view> filter) {
  if (!filter) return std::nullopt;
  std::set<std::string, std::less<>> names;
  std::string_view rest = *filter;
  while (true) {
    auto comma = rest.find(',');
    auto name = trimmed(rest.substr(0, comma));
    if (!name.empty()) names.emplace(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (names.empty()) return std::nullopt;
  return names;
}

bool matchesAny(std::string_view name, const std::vector<std::string>& patterns) {
  const std::string text(name);
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
    return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
  });
}

std::string maskUrlPasswords(std::string_view value) {
  std::string out(value);
  for (std::size_t scheme = out.find("://"); scheme != std::string::npos;
       scheme = out.find("://", scheme + 3)) {
    const std::size_t start = scheme + 3;
    std::size_t end = out.find_first_of("/?# \t,;", start);
    if (end == std::string::npos) end = out.size();
    const std::string_view authority(out.data() + start, end - start);
    const std::size_t at = authority.rfind('@');
    const std::size_t colon = authority.find(':');
    if (at == std::string_view::npos || colon == std::string_view::npos || colon > at) continue;
    out.replace(start + colon + 1, at - colon - 1, "***");
  }
  return out;
}

bool isProtectedByPolicy(std::string_view name, const sdk::Params& params) {
  auto deny = params.strings(kEnvDeny);
  return deny && matchesAny(name, *deny);
}

bool policyAllows(std::string_view name, const sdk::Params& params) {
  if (auto deny = params.strings(kDenyVars); deny && matchesAny(name, *deny)) return false;
  if (auto allow = params.strings(kAllowVars); allow && !matchesAny(name, *allow)) return false;
  return true;
}

std::vector<std::pair<std::string, std::string>> visibleVariables(
    const std::vector<std::string>& entries,
    const std::optional<std::set<std::string, std::less<>>>& whitelist, const sdk::Params& params) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : entries) {
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string_view name(entry.data(), eq);
    if (whitelist && !whitelist->count(name)) continue;
    if (isSensitiveName(name) || !policyAllows(name, params)) continue;
    out.emplace_back(std::string(name), maskUrlPasswords(std::string_view(entry).substr(eq + 1)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::variant<std::vector<std::pair<std::string, std::string>>, EnvRefusal> validateEnvUpdate(
    const sdk::Json& body, const std::function<bool(std::string_view)>& host_refuses,
    const sdk::Params& params) {
  std::vector<std::pair<std::string, std::string>> updates;
  const sdk::JsonKind kind = body.kind("vars");
  if (kind == sdk::JsonKind::missing) return updates;
  if (kind != sdk::JsonKind::object) return refuse(400, "'vars' must be an object");
  auto vars = body.object("vars");
  if (!vars) return refuse(400, vars.status().message());

  for (const auto& name : vars->keys()) {
    if (!isValidName(name))
      return refuse(400, "Invalid environment variable name: '" + name +
                             "' (use letters, digits and '_', not starting with a digit)");
    if (vars->kind(name) != sdk::JsonKind::string)
      return refuse(400, "Value of '" + name + "' must be a string");
    auto value = vars->string(name);
    if (!value) return refuse(400, value.status().message());
    if (value->find('\0') != std::string::npos)
      return refuse(400, "Value of '" + name + "' cannot contain NUL bytes");
    updates.emplace_back(name, std::move(*value));
  }
  std::sort(updates.begin(), updates.end());

  std::vector<std::string> blocked, denied;
  for (const auto& [name, value] : updates) {
    if (isProtectedName(name) || protectedEnvClass(name) || isProtectedByPolicy(name, params) ||
        (host_refuses && host_refuses(name)))
      blocked.push_back(name);
    else if (!policyAllows(name, params))
      denied.push_back(name);
  }
  if (!blocked.empty())
    return refuse(403, "Cannot overwrite protected variable(s): " + joined(blocked),
                  "PermissionError", "env_protected");
  if (!denied.empty())
    return refuse(403, "Variable(s) not allowed by policy: " + joined(denied), "PermissionError",
                  "env_var_denied");
  return updates;
}

}  // namespace abx::plugins::system
