// Finds the policy in force, first match wins: serve --policy FILE / --preset
// NAME -> ABX_SERVER_POLICY (inline JSON) -> ABX_SERVER_POLICY_FILE ->
// /etc/agent-sandbox/server-policy.json -> none (the default layer alone).
// The preset comes from --preset, else from the policy's `preset:` key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "policy/policy_document.h"
#include "server/server_config.h"

namespace abx::kernel {

struct PolicySources {
  std::optional<PolicyDocument> policy;
  std::optional<PolicyDocument> preset;
  std::string origin = "none"; /**< "--policy", "ABX_SERVER_POLICY", ... */
};

/** Reads every source again (a SIGHUP reload calls this too). */
sdk::Result<PolicySources> readPolicySources(const ServerConfig& config);

/** The auth.tokens[].token_env names of @p sources (variables no child may see). */
std::vector<std::string> tokenEnvNames(const PolicySources& sources);

/** The system-wide policy file consulted last. */
inline constexpr const char* kSystemPolicyFile = "/etc/agent-sandbox/server-policy.json";

}  // namespace abx::kernel
