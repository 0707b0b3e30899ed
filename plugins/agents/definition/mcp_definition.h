// The mcp_servers section of an agent definition: each server by name, with
// either a url (and headers, secret when marked, a placeholder, a credential
// reference or a credential header name) or a command (and args), and its
// allowed_tools.
#pragma once

#include <string>

#include "abx/sdk/agent_adapter.h"
#include "definition/definition_reader.h"

namespace abx::plugins::agents {

/** Reads mcp_servers (@p v, at @p path) into @p spec.mcp_servers. */
void readMcpServers(DefinitionReader& in, const ConfigValue& v, const std::string& path,
                    sdk::agents::AgentSpec& spec);

}  // namespace abx::plugins::agents
