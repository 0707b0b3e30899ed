// Finds the policy in force, first match wins: serve --policy FILE / --preset
// NAME -> ABX_SERVER_POLICY (inline JSON) -> ABX_SERVER_POLICY_FILE ->
// server-policy.json in the install's config dir (/etc/agent-sandbox for a
// /usr install) -> none (the default layer alone).
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

}  // namespace abx::kernel
