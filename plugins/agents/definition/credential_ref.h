// Credential references in agent definitions: wherever a definition may hold
// a secret (provider.api_key, workspace.git.token, secrets.<NAME>,
// mcp_servers.<name>.headers.<Header>) it may instead name a vault
// credential, {"vault": "vlt_…", "credential": "cred_…"}. The definition keeps
// the reference, never the value; applyCredentialRefs() writes the values
// into a copy of the spec at turn start, so a rotated credential takes effect
// on the next turn and a deleted one fails that turn with a clear message.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::agents {

struct CredentialRef {
  /** The slot, relative to the definition: "provider.api_key",
   *  "workspace.git.token", "secrets.NAME", "mcp_servers.S.headers.H". */
  std::string slot;
  std::string vault;
  std::string credential;
};

/** What a reference resolves to: the credential's type and its secret. */
struct CredentialValue {
  std::string type; /**< environment_variable | static_bearer | mcp_oauth */
  std::string secret;
};

using CredentialLookup = std::function<std::optional<CredentialValue>(
    const std::string& vault, const std::string& credential)>;

/**
 * Fills every slot of @p refs in @p spec. A static_bearer or mcp_oauth token
 * in an `Authorization` header becomes "Bearer <token>"; every other slot
 * receives the secret as it is.
 * @return the error text for the first reference that does not resolve.
 */
std::optional<std::string> applyCredentialRefs(sdk::agents::AgentSpec& spec,
                                               const std::vector<CredentialRef>& refs,
                                               const CredentialLookup& lookup);

}  // namespace abx::plugins::agents
