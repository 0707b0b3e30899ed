#include "definition/credential_ref.h"

#include <strings.h>

namespace abx::plugins::agents {
namespace {

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Finds the string a slot names; nullptr when the spec has no such slot
// (the reader always creates it, so that means a bug, reported as such).
std::string* slotValue(sdk::agents::AgentSpec& spec, const std::string& slot,
                       std::string& header_name) {
  if (slot == "provider.api_key") return &spec.provider.api_key;
  if (slot == "workspace.git.token")
    return spec.workspace.git ? &spec.workspace.git->token : nullptr;
  if (startsWith(slot, "secrets.")) {
    const auto name = slot.substr(8);
    for (auto& [key, value] : spec.secrets)
      if (key == name) return &value;
    return nullptr;
  }
  if (startsWith(slot, "mcp_servers.")) {
    const auto rest = slot.substr(12);
    const auto dot = rest.find(".headers.");
    if (dot == std::string::npos) return nullptr;
    const auto server_name = rest.substr(0, dot);
    header_name = rest.substr(dot + 9);
    for (auto& server : spec.mcp_servers) {
      if (server.name != server_name) continue;
      for (auto& header : server.headers)
        if (header.name == header_name) return &header.value;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> applyCredentialRefs(sdk::agents::AgentSpec& spec,
                                               const std::vector<CredentialRef>& refs,
                                               const CredentialLookup& lookup) {
  for (const auto& ref : refs) {
    auto value = lookup ? lookup(ref.vault, ref.credential) : std::nullopt;
    if (!value)
      return "The credential '" + ref.credential + "' of vault '" + ref.vault + "' (" + ref.slot +
             " of agent '" + spec.name + "') does not exist.";
    // Creating a credential requires its secret: an empty one is one a
    // restart without a state key did not keep.
    if (value->secret.empty())
      return "The secret of credential '" + ref.credential + "' of vault '" + ref.vault + "' (" +
             ref.slot + " of agent '" + spec.name +
             "') was not kept across a server restart (the server has no state key; set "
             "ABX_AGENTS_STATE_KEY or the agents setting state_key_file to keep secrets). Send it "
             "again with POST /v1/vaults/" +
             ref.vault + "/credentials/" + ref.credential + ".";
    std::string header_name;
    auto* slot = slotValue(spec, ref.slot, header_name);
    if (!slot) return "Agent '" + spec.name + "' has no slot " + ref.slot + ".";
    const bool bearer = value->type == "static_bearer" || value->type == "mcp_oauth";
    *slot = bearer && ::strcasecmp(header_name.c_str(), "Authorization") == 0
                ? "Bearer " + value->secret
                : value->secret;
  }
  return std::nullopt;
}

}  // namespace abx::plugins::agents
