// buildQwenSettingsFile(): MCP servers + offline switches -> settings JSON.
#include "qwen_settings_file.h"

#include <cctype>

#include "abx/sdk/json.h"
#include "json_pretty.h"

namespace abx::plugins::adapters {
namespace {

void flagObject(sdk::JsonWriter& w, std::string_view name, std::string_view key, bool value) {
  w.key(name).beginObject().member(key, value).endObject();
}

// qwen's MCP config: httpUrl = Streamable HTTP, url = SSE (gemini-cli heritage).
bool looksLikeSse(const std::string& url) {
  auto path = url.substr(0, url.find_first_of("?#"));
  return path.size() >= 4 && path.compare(path.size() - 4, 4, "/sse") == 0;
}

void stringArray(sdk::JsonWriter& w, std::string_view name, const std::vector<std::string>& items) {
  w.key(name).beginArray();
  for (const auto& item : items) w.value(item);
  w.endArray();
}

}  // namespace

std::string mcpHeaderEnvName(std::size_t index, std::string_view header) {
  std::string name = "ABX_MCP_" + std::to_string(index) + "_";
  for (unsigned char c : header) name += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
  return name;
}

QwenSettingsFile buildQwenSettingsFile(const std::vector<sdk::agents::McpServerSpec>& servers) {
  QwenSettingsFile file;
  sdk::JsonWriter w;
  w.beginObject();
  flagObject(w, "general", "enableAutoUpdate", false);
  flagObject(w, "privacy", "usageStatisticsEnabled", false);
  flagObject(w, "telemetry", "enabled", false);
  if (!servers.empty()) {
    w.key("mcpServers").beginObject();
    for (std::size_t i = 0; i < servers.size(); ++i) {
      const auto& server = servers[i];
      w.key(server.name).beginObject();
      if (!server.url.empty()) {
        w.member(looksLikeSse(server.url) ? "url" : "httpUrl", server.url);
        if (!server.headers.empty()) {
          w.key("headers").beginObject();
          // Every header value travels in the env, secret or not: qwen expands
          // $VAR in this file, so a literal value could be rewritten anyway.
          for (const auto& header : server.headers) {
            std::string var = mcpHeaderEnvName(i, header.name);
            w.member(header.name, "${" + var + "}");
            file.env.emplace_back(var, header.value);
          }
          w.endObject();
        }
      } else {
        w.member("command", server.command);
        stringArray(w, "args", server.args);
      }
      if (!server.allowed_tools.empty()) stringArray(w, "includeTools", server.allowed_tools);
      w.endObject();
    }
    w.endObject();
  }
  w.endObject();
  // Read back: a per-turn server replaces a definition server of the same
  // name at its place (the parser keeps a repeated key's first place and
  // last value), and the file is laid out for a reader.
  std::string compact = w.take();
  auto settings = sdk::Json::parse(compact);
  file.json = (settings ? prettyJson(*settings) : compact) + "\n";
  return file;
}

}  // namespace abx::plugins::adapters
