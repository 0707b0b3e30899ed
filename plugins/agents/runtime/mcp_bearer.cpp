#include "runtime/mcp_bearer.h"

#include <strings.h>

#include <algorithm>
#include <string_view>

namespace abx::plugins::agents {
namespace {

std::string_view withoutTrailingSlash(std::string_view url) {
  if (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return url;
}

}  // namespace

std::size_t applyMcpBearers(std::vector<sdk::agents::McpServerSpec>& servers,
                            const McpBearerTokens& tokens) {
  std::size_t applied = 0;
  for (auto& server : servers) {
    if (server.url.empty()) continue;
    for (const auto& [url, token] : tokens) {
      if (withoutTrailingSlash(url) != withoutTrailingSlash(server.url)) continue;
      auto& headers = server.headers;
      headers.erase(std::remove_if(headers.begin(), headers.end(),
                                   [](const sdk::agents::McpHeader& h) {
                                     return ::strcasecmp(h.name.c_str(), "Authorization") == 0;
                                   }),
                    headers.end());
      headers.push_back({"Authorization", "Bearer " + token, true});
      ++applied;
      break;
    }
  }
  return applied;
}

}  // namespace abx::plugins::agents
