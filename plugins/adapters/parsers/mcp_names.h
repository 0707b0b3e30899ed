// The MCP name rule every adapter applies before it joins server and tool
// names into a CLI's argv or config (Claude Code's comma-separated
// --allowedTools, codex's `mcp_servers.<name>` keys, ...): [A-Za-z0-9_-]{1,64}.
// The agents plugin refuses other names at the wire already; this is the
// second line, so a name that reaches an adapter unchecked (an out-of-tree
// caller, a future wire) can never add a tool or a key.
#pragma once

#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/status.h"

namespace abx::plugins::adapters {

/** [A-Za-z0-9_-]{1,64}. */
bool isSafeMcpName(std::string_view name);

/**
 * ok, or a ValueError naming the first server name or allowed_tools entry of
 * @p servers that breaks the rule (@p runtime names the adapter in the message).
 */
sdk::Status checkMcpNames(const std::vector<sdk::agents::McpServerSpec>& servers,
                          std::string_view runtime);

}  // namespace abx::plugins::adapters
