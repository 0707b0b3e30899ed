#include "mcp_names.h"

#include <algorithm>
#include <string>

namespace abx::plugins::adapters {

bool isSafeMcpName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

sdk::Status checkMcpNames(const std::vector<sdk::agents::McpServerSpec>& servers,
                          std::string_view runtime) {
  const std::string rule = " must match [A-Za-z0-9_-]{1,64} for " + std::string(runtime);
  for (const auto& server : servers) {
    if (!isSafeMcpName(server.name))
      return sdk::Status::error("MCP server name '" + server.name + "'" + rule, "ValueError");
    for (const auto& tool : server.allowed_tools)
      if (!isSafeMcpName(tool))
        return sdk::Status::error(
            "MCP tool name '" + tool + "' of server '" + server.name + "'" + rule, "ValueError");
  }
  return sdk::Status::ok();
}

}  // namespace abx::plugins::adapters
