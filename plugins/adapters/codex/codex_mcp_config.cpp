// MCP servers -> codex -c inline tables + header env vars.
#include "codex_mcp_config.h"

#include <algorithm>

#include "toml_text.h"

namespace abx::plugins::adapters {

using sdk::agents::McpServerSpec;

namespace {

bool isTomlBareKey(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

}  // namespace

std::string mcpHeaderEnvName(std::size_t server, std::size_t header) {
  return "ABX_CODEX_MCP_HEADER_" + std::to_string(server) + "_" + std::to_string(header);
}

sdk::Result<CodexMcpConfig> codexMcpConfig(const std::vector<McpServerSpec>& servers) {
  CodexMcpConfig config;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const McpServerSpec& server = servers[i];
    if (!isTomlBareKey(server.name))
      return sdk::Status::error(
          "MCP server name '" + server.name + "' must match [A-Za-z0-9_-]{1,64} for codex",
          "ValueError");
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
