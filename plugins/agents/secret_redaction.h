// The runtime's TextRedaction for one agent: its SecretBag (provider key,
// git token, secrets, secret MCP headers) plus per-turn secrets (the
// headers of a request's `mcp` tools), over the plugin's Redactor.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "runtime/text_redaction.h"

namespace abx::plugins::agents {

std::shared_ptr<const TextRedaction> redactionFor(const sdk::agents::AgentSpec& spec,
                                                  const std::vector<std::string>& extra = {});

}  // namespace abx::plugins::agents
