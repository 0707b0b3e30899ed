// The per-turn Qwen Code settings layer: a JSON file in the turn's private
// directory that QWEN_CODE_SYSTEM_DEFAULTS_PATH names. It switches telemetry,
// usage statistics and auto-update off and carries the turn's MCP servers.
//
// Why this layer and not <workdir>/.qwen/settings.json (the spec's plan):
// qwen 0.24.4 treats MCP servers from workspace settings as "gated" and skips
// them unless the approval mode is yolo or the user approved them in
// ~/.qwen/mcpApprovals.json, so read_only and workspace_write turns would lose
// their MCP servers; servers from the system-defaults layer are not gated.
// The layer is also resolved for ${VAR} (unlike --mcp-config), so secret
// header values stay in the child env and the file holds placeholders only,
// and the workspace is never touched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

struct QwenSettingsFile {
  std::string json;         /**< the file's content: no secret, only ${VAR} placeholders */
  sdk::agents::EnvList env; /**< the placeholders' values (MCP header values: secret) */
};

/** The settings layer for @p servers (definition servers first, then per-turn ones). */
QwenSettingsFile buildQwenSettingsFile(const std::vector<sdk::agents::McpServerSpec>& servers);

/**
 * The env var that carries header @p header of the @p index-th MCP server:
 * ABX_MCP_<index>_<HEADER> with every character outside [A-Za-z0-9] as "_"
 * (the index keeps two servers' "Authorization" headers apart).
 */
std::string mcpHeaderEnvName(std::size_t index, std::string_view header);

}  // namespace abx::plugins::adapters
