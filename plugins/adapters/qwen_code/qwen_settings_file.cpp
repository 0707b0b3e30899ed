// buildQwenSettingsFile(): MCP servers + offline switches -> settings JSON.
#include "qwen_settings_file.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <cctype>
#include <sstream>

namespace abx::plugins::adapters {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

Object::Ptr ordered() { return new Object(Poco::JSON_PRESERVE_KEY_ORDER); }

Object::Ptr flagObject(const std::string& key, bool value) {
  auto o = ordered();
  o->set(key, value);
  return o;
}

// qwen's MCP config: httpUrl = Streamable HTTP, url = SSE (gemini-cli heritage).
bool looksLikeSse(const std::string& url) {
  auto path = url.substr(0, url.find_first_of("?#"));
  return path.size() >= 4 && path.compare(path.size() - 4, 4, "/sse") == 0;
}

}  // namespace

std::string mcpHeaderEnvName(std::size_t index, std::string_view header) {
  std::string name = "ABX_MCP_" + std::to_string(index) + "_";
  for (unsigned char c : header) name += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
  return name;
}

QwenSettingsFile buildQwenSettingsFile(const std::vector<sdk::agents::McpServerSpec>& servers) {
  QwenSettingsFile file;
  auto root = ordered();
  root->set("general", flagObject("enableAutoUpdate", false));
  root->set("privacy", flagObject("usageStatisticsEnabled", false));
  root->set("telemetry", flagObject("enabled", false));
  if (!servers.empty()) {
    auto mcp = ordered();
    for (std::size_t i = 0; i < servers.size(); ++i) {
      const auto& server = servers[i];
      auto entry = ordered();
      if (!server.url.empty()) {
        entry->set(looksLikeSse(server.url) ? "url" : "httpUrl", server.url);
        if (!server.headers.empty()) {
          auto headers = ordered();
          // Every header value travels in the env, secret or not: qwen expands
          // $VAR in this file, so a literal value could be rewritten anyway.
          for (const auto& header : server.headers) {
            std::string var = mcpHeaderEnvName(i, header.name);
            headers->set(header.name, "${" + var + "}");
            file.env.emplace_back(var, header.value);
          }
          entry->set("headers", headers);
        }
      } else {
        entry->set("command", server.command);
        Array::Ptr args = new Array;
        for (const auto& arg : server.args) args->add(arg);
        entry->set("args", args);
      }
      if (!server.allowed_tools.empty()) {
        Array::Ptr tools = new Array;
        for (const auto& tool : server.allowed_tools) tools->add(tool);
        entry->set("includeTools", tools);
      }
      // A per-turn server replaces a definition server of the same name.
      mcp->set(server.name, entry);
    }
    root->set("mcpServers", mcp);
  }
  std::ostringstream out;
  root->stringify(out, 2);
  file.json = out.str() + "\n";
  return file;
}

}  // namespace abx::plugins::adapters
