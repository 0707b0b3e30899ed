// MCP servers for one codex turn: codex has no MCP config file flag, so each
// server becomes one `-c mcp_servers.<name>={...}` inline table. Header values
// never appear there: each header is an env-var reference (codex's
// env_http_headers) and its value travels in the child env only.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/status.h"

namespace abx::plugins::adapters {

struct CodexMcpConfig {
  std::vector<std::string> args; /**< "-c", "mcp_servers.<name>={...}", ... */
  sdk::agents::EnvList env;      /**< header env vars (values may be secret) */
};

/**
 * url server     -> {url, env_http_headers = {<Header> = <env name>}, enabled_tools}
 * command server -> {command, args, enabled_tools}
 * enabled_tools only when allowed_tools is not empty. A later server with the
 * same name replaces an earlier one (per-turn servers after the definition's).
 * Error when a server or tool name is not [A-Za-z0-9_-]{1,64} (mcp_names.h;
 * a server name is a TOML key in a dotted path) or a server has neither url
 * nor command.
 */
sdk::Result<CodexMcpConfig> codexMcpConfig(const std::vector<sdk::agents::McpServerSpec>& servers);

/**
 * The env var carrying header @p header of server @p server (positions in
 * the list given to codexMcpConfig): ABX_CODEX_MCP_SECRET_<server>_<header>.
 * Hidden from the shells codex's tools run twice over: its ABX_CODEX_ prefix
 * is in the adapter's shell_environment_policy.exclude (codex_adapter.h), and
 * "SECRET" is in codex's own default exclusion (*KEY*, *SECRET*, *TOKEN*),
 * which applies wherever shell_environment_policy.ignore_default_excludes is
 * false.
 */
std::string mcpHeaderEnvName(std::size_t server, std::size_t header);

}  // namespace abx::plugins::adapters
