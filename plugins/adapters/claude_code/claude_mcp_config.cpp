// claudeMcpConfig(): McpServerSpecs -> Claude Code's --mcp-config JSON + env.
#include "claude_mcp_config.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "abx/sdk/json.h"

namespace abx::plugins::adapters {

using sdk::jsonQuote;
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
  std::string members;
  for (const McpServerSpec* server : chosen) {
    std::string entry;
    if (!server->url.empty()) {
      std::string headers;
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
        headers += (headers.empty() ? "" : ",") + jsonQuote(header.name) + ":" + jsonQuote(value);
      }
      entry =
          R"({"type":"http","url":)" + jsonQuote(server->url) + R"(,"headers":{)" + headers + "}}";
    } else {
      std::string args;
      for (const auto& arg : server->args) args += (args.empty() ? "" : ",") + jsonQuote(arg);
      entry = R"({"type":"stdio","command":)" + jsonQuote(server->command) + R"(,"args":[)" + args +
              "]}";
    }
    members += (members.empty() ? "" : ",") + jsonQuote(server->name) + ":" + entry;
    for (const auto& tool : server->allowed_tools)
      config.tools.push_back("mcp__" + server->name + "__" + tool);
  }
  config.json = R"({"mcpServers":{)" + members + "}}";
  return config;
}

}  // namespace abx::plugins::adapters
