// MCP bearer tokens from a session's vaults (openai-wire.md §9.11): each
// static_bearer / mcp_oauth credential becomes the Authorization header of
// the MCP server whose URL is the credential's mcp_server_url.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::agents {

/** {mcp_server_url, token} */
using McpBearerTokens = std::vector<std::pair<std::string, std::string>>;

/**
 * Sets `Authorization: Bearer <token>` (a secret header, replacing any
 * Authorization the server had) on every URL server of @p servers that a
 * token's URL names. URLs match exactly, ignoring one trailing '/'.
 * @return how many servers received a token.
 */
std::size_t applyMcpBearers(std::vector<sdk::agents::McpServerSpec>& servers,
                            const McpBearerTokens& tokens);

}  // namespace abx::plugins::agents
