// The child environment of an agent CLI (agents spec §9.2): the allowlist
// taken from the server's child environment, the names an operator passes
// through (ABX_AGENTS_PASSTHROUGH_ENV), the adapter's credential env, the
// definition's env and secrets, and the invocation's additions — nothing
// else, ever. No ABX_* variable of the server is inherited, and names the
// server protects (ABX_SERVER_*, token variables: ChildEnvironment::
// isProtected) never pass, whoever asks.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::agents {

/** True for the §9.2 allowlist: PATH, HOME, LANG, LC_*, proxies, NPM_CONFIG_*, ... */
bool isAllowlistedEnvName(std::string_view name);

struct AgentEnvParts {
  std::vector<std::string> base;        /**< "NAME=value" (the server's child environment) */
  std::vector<std::string> passthrough; /**< extra names allowed from base */
  sdk::agents::EnvList credentials;
  sdk::agents::EnvList definition_env;
  sdk::agents::EnvList secrets;
  sdk::agents::EnvList invocation;
  /** The host's ChildEnvironment::isProtected; unset: only base's ABX_* names are dropped. */
  std::function<bool(std::string_view)> is_protected;
};

/** "NAME=value" entries, later parts overriding earlier ones, sorted by name. */
std::vector<std::string> buildAgentEnv(const AgentEnvParts& parts);

}  // namespace abx::plugins::agents
