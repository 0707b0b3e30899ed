// claudeMcpConfig(): McpServerSpecs -> Claude Code's --mcp-config JSON + env.
#include "claude_mcp_config.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "abx/sdk/json.h"

namespace abx::plugins::adapters {

using sdk::agents::McpServerSpec;

std::string envNamePart(std::string_view text) {
  std::string out;
  for (unsigned char c : text) out += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
  return out;
}

ClaudeMcpConfig claudeMcpConfig(const std::vector<McpServerSpec>& servers) {
  // Last one of a name wins, at the place of the first.
  std::vector<const McpServerSpec*> chosen;
  for (const auto& server : servers) {
    auto same = std::find_if(chosen.begin(), chosen.end(),
                             [&](const McpServerSpec* s) { return s->name == server.name; });
    if (same != chosen.end())
      *same = &server;
    else
      chosen.push_back(&server);
  }

  ClaudeMcpConfig config;
  std::set<std::string> env_names;
  sdk::JsonWriter w;
  w.beginObject().key("mcpServers").beginObject();
  for (const McpServerSpec* server : chosen) {
    w.key(server->name).beginObject();
    if (!server->url.empty()) {
      w.member("type", "http").member("url", server->url).key("headers").beginObject();
      for (const auto& header : server->headers) {
        std::string value = header.value;
        if (header.secret) {
          const std::string base =
              "ABX_MCP_" + envNamePart(server->name) + "_" + envNamePart(header.name);
          std::string name = base;
          for (int n = 2; !env_names.insert(name).second; ++n)
            name = base + "_" + std::to_string(n);
          config.env.emplace_back(name, header.value);
          value = "${" + name + "}";
        }
        w.member(header.name, value);
      }
      w.endObject();
    } else {
      w.member("type", "stdio").member("command", server->command).key("args").beginArray();
      for (const auto& arg : server->args) w.value(arg);
      w.endArray();
    }
    w.endObject();
    for (const auto& tool : server->allowed_tools)
      config.tools.push_back("mcp__" + server->name + "__" + tool);
  }
  config.json = w.endObject().endObject().take();
  return config;
}

}  // namespace abx::plugins::adapters
