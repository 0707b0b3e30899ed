// The rules of GET /env and POST /env (spec §4.6, §8.3), as pure functions
// over the child environment's entries, so they are tested without a host.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/policy.h"

namespace abx::plugins::system {

/** Name parts that hide a variable from GET /env, matched case-insensitively. */
inline constexpr std::string_view kSensitiveTokens[] = {"TOKEN", "SECRET", "KEY", "PASSWORD",
                                                        "CREDENTIAL"};
/** Names POST /env never overwrites (spec §8.3); env_protection.h adds the hook classes. */
inline constexpr std::string_view kProtectedNames[] = {"PATH", "HOME", "USER", "SHELL",
                                                       "ABX_SERVER_TOKEN"};

/** True when @p name contains a sensitive token (API_KEY, github_token, ...). */
bool isSensitiveName(std::string_view name);
/** True for the spec's protected names (exact, case-sensitive: "path" is not PATH). */
bool isProtectedName(std::string_view name);
/** A POSIX-portable name: [A-Za-z_][A-Za-z0-9_]*. */
bool isValidName(std::string_view name);

/**
 * `filter=A, B,,C` -> {A, B, C}; nullopt when the parameter is absent or
 * names nothing (no whitelist: every variable).
 */
std::optional<std::set<std::string, std::less<>>> parseFilter(
    std::optional<std::string_view> filter);

/** True when @p name matches one of the fnmatch(3) @p patterns. */
bool matchesAny(std::string_view name, const std::vector<std::string>& patterns);

/**
 * @p value with the password of every `scheme://user:password@host` in it
 * shown as `***` (GET /env: proxy and database URLs carry credentials under
 * names no sensitive token catches).
 */
std::string maskUrlPasswords(std::string_view value);

/** True when the policy's `env_deny` globs name @p name: POST /env refuses it as protected. */
bool isProtectedByPolicy(std::string_view name, const sdk::Params& params);

/**
 * The policy's params for env endpoints: `deny_vars` hides (GET) or refuses
 * (POST) matching names; `allow_vars`, when set, restricts to matching names.
 */
bool policyAllows(std::string_view name, const sdk::Params& params);

/**
 * The variables GET /env shows: from @p entries ("NAME=value", as
 * ChildEnvironment::snapshot() gives them), those in @p whitelist (if any),
 * not sensitive, and allowed by @p params, URL passwords masked. Sorted by
 * name.
 */
std::vector<std::pair<std::string, std::string>> visibleVariables(
    const std::vector<std::string>& entries,
    const std::optional<std::set<std::string, std::less<>>>& whitelist, const sdk::Params& params);

/** Why a POST /env body was refused: HTTP status, message, type, code. */
struct EnvRefusal {
  int status = 400;
  std::string message;
  std::string type = "ValueError";
  std::string code;
};

/**
 * Validates a whole POST /env body before anything is set. Order: `vars`
 * must be an object (absent: nothing to do); every value a string without
 * NUL bytes and every name valid (400 ValueError); then no protected name
 * (the spec's, protectedEnvClass(), the policy's `env_deny` globs) and no
 * name @p host_refuses (403 PermissionError, code `env_protected`, listing
 * every such name), and no name `deny_vars` / `allow_vars` forbid (403, code
 * `env_var_denied`).
 * @return the (name, value) pairs sorted by name, or the refusal.
 */
std::variant<std::vector<std::pair<std::string, std::string>>, EnvRefusal> validateEnvUpdate(
    const sdk::Json& body, const std::function<bool(std::string_view)>& host_refuses,
    const sdk::Params& params);

}  // namespace abx::plugins::system
