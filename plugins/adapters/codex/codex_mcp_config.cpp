// MCP servers -> codex -c inline tables + header env vars.
#include "codex_mcp_config.h"

#include "mcp_names.h"
#include "toml_text.h"

namespace abx::plugins::adapters {

using sdk::agents::McpServerSpec;

std::string mcpHeaderEnvName(std::size_t server, std::size_t header) {
  return "ABX_CODEX_MCP_SECRET_" + std::to_string(server) + "_" + std::to_string(header);
}

sdk::Result<CodexMcpConfig> codexMcpConfig(const std::vector<McpServerSpec>& servers) {
  // Server names become TOML keys of a dotted path, tool names list entries.
  if (auto s = checkMcpNames(servers, "codex"); !s) return s;
  CodexMcpConfig config;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const McpServerSpec& server = servers[i];
    std::vector<std::pair<std::string, std::string>> table;
    if (!server.url.empty()) {
      table.emplace_back("url", toml::string(server.url));
      if (!server.headers.empty()) {
        std::vector<std::pair<std::string, std::string>> headers;
        for (std::size_t h = 0; h < server.headers.size(); ++h) {
          const std::string env_name = mcpHeaderEnvName(i, h);
          headers.emplace_back(server.headers[h].name, toml::string(env_name));
          config.env.emplace_back(env_name, server.headers[h].value);
        }
        table.emplace_back("env_http_headers", toml::inlineTable(headers));
      }
    } else if (!server.command.empty()) {
      table.emplace_back("command", toml::string(server.command));
      table.emplace_back("args", toml::stringArray(server.args));
    } else {
      return sdk::Status::error("MCP server '" + server.name + "' needs a url or a command",
                                "ValueError");
    }
    if (!server.allowed_tools.empty())
      table.emplace_back("enabled_tools", toml::stringArray(server.allowed_tools));
    config.args.push_back("-c");
    config.args.push_back("mcp_servers." + server.name + "=" + toml::inlineTable(table));
  }
  return config;
}

}  // namespace abx::plugins::adapters
