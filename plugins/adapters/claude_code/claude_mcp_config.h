// ClaudeMcpConfig: an agent's MCP servers as the JSON file Claude Code reads
// with --mcp-config. Secret header values never enter the file: it holds a
// ${VAR} reference (Claude expands ${VAR} in --mcp-config files) and the
// value travels in the child's environment under that name.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

struct ClaudeMcpConfig {
  std::string json;               /**< {"mcpServers": {...}} */
  sdk::agents::EnvList env;       /**< the secret header values, by the names json references */
  std::vector<std::string> tools; /**< mcp__<server>__<tool> of every allowed_tools entry */
};

/**
 * @p servers in order; a later server with the name of an earlier one
 * replaces it (per-turn servers follow the definition's). A url server is
 * {"type":"http","url","headers"}; a command server {"type":"stdio",
 * "command","args"}. A secret header becomes "${ABX_MCP_<SERVER>_<HEADER>}"
 * (upper case, other characters as '_', a numeric suffix if two collide).
 */
ClaudeMcpConfig claudeMcpConfig(const std::vector<sdk::agents::McpServerSpec>& servers);

/** @p text as an environment variable name part: A-Z, 0-9 and '_'. */
std::string envNamePart(std::string_view text);

}  // namespace abx::plugins::adapters
