// The variables POST /env never sets because they change how the programs
// started afterwards load or run (docs/system.md, "Protected variables"):
// dynamic loader and C library hooks, shell start-up hooks, git, interpreter,
// build-tool and package-manager hooks, proxies and TLS trust, programs run on
// a user's behalf, and the places programs read their configuration from.
// Every child the server starts later (git status, the pip probe, a caller's
// shell) would obey them, so one caller could take over what another runs.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace abx::plugins::system {

/** One rule of the list: an fnmatch(3) glob and the class it belongs to. */
struct ProtectedEnvPattern {
  std::string_view glob;
  /** True where the programs read the name in any case (http_proxy, npm_config_*). */
  bool any_case = false;
  std::string_view what; /**< the class, e.g. "dynamic loader and C library" */
};

/** The whole list, in the order docs/system.md gives it. */
const std::vector<ProtectedEnvPattern>& protectedEnvPatterns();

/**
 * The class that protects @p name ("proxies and TLS trust", ...), or nullopt
 * when POST /env may set it. Matched case-sensitively except for the any_case
 * patterns; NODE_ENV is the one NODE_* name that stays settable.
 */
std::optional<std::string_view> protectedEnvClass(std::string_view name);

}  // namespace abx::plugins::system
