#include "definition/mcp_definition.h"

#include <optional>
#include <vector>

#include "definition/definition_rules.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

using sdk::agents::McpHeader;
using sdk::agents::McpServerSpec;
using Kind = ConfigValue::Kind;

// A header's value given as {value: ..., secret: true}.
std::optional<std::string> headerObject(DefinitionReader& in, const ConfigValue& value,
                                        const std::string& header_path, McpHeader& header,
                                        bool& had_placeholder) {
  std::optional<std::string> text;
  in.checkKeys(value, header_path, {"value", "secret"});
  const ConfigValue* inner = value.find("value");
  if (inner == nullptr) {
    in.fail(joinPath(header_path, "value"), "is required");
  } else {
    text = in.string(*inner, joinPath(header_path, "value"), &had_placeholder);
  }
  if (const auto* secret = value.find("secret"); secret && secret->kind != Kind::null) {
    if (in.expectKind(*secret, Kind::boolean, joinPath(header_path, "secret")))
      header.secret = secret->boolean;
  }
  return text;
}

std::vector<McpHeader> readHeaders(DefinitionReader& in, const ConfigValue& v,
                                   const std::string& path) {
  std::vector<McpHeader> out;
  if (v.kind == Kind::null || !in.expectKind(v, Kind::object, path)) return out;
  for (const auto& [name, value] : v.members) {
    const std::string header_path = joinPath(path, name);
    if (!isValidHeaderName(name)) {
      in.fail(header_path, "is not a valid HTTP header name");
      continue;
    }
    McpHeader header;
    header.name = name;
    bool had_placeholder = false;
    std::optional<std::string> text;
    if (in.credentialRef(value, header_path)) {
      header.secret = true;
      out.push_back(std::move(header));
      continue;
    }
    if (value.kind == Kind::object) {
      text = headerObject(in, value, header_path, header, had_placeholder);
    } else if (value.kind == Kind::string) {
      text = in.string(value, header_path, &had_placeholder);
    } else {
      in.fail(header_path, "must be a string or {value, secret} (got " +
                               std::string(kindName(value.kind)) + ")");
    }
    if (!text) continue;
    if (auto problem = headerValueProblem(*text)) {
      in.fail(header_path, *problem);
      continue;
    }
    // secret: false never downgrades a placeholder or a credential header.
    header.secret = header.secret || had_placeholder || isCredentialHeaderName(name);
    header.value = std::move(*text);
    out.push_back(std::move(header));
  }
  return out;
}

McpServerSpec readServer(DefinitionReader& in, const std::string& name, const ConfigValue& value,
                         const std::string& server_path) {
  in.checkKeys(value, server_path, {"url", "headers", "command", "args", "allowed_tools"});
  McpServerSpec server;
  server.name = name;
  in.optionalString(value, "url", server_path, server.url);
  in.optionalString(value, "command", server_path, server.command);
  if (server.url.empty() == server.command.empty()) {
    in.fail(server_path, server.url.empty() ? "needs either url or command"
                                            : "give either url or command, not both");
  }
  if (!server.url.empty())
    if (auto problem = httpUrlProblem(server.url)) in.fail(joinPath(server_path, "url"), *problem);
  if (const auto* headers = value.find("headers")) {
    if (!server.command.empty() && headers->kind != Kind::null)
      in.fail(joinPath(server_path, "headers"), "only allowed with url");
    server.headers = readHeaders(in, *headers, joinPath(server_path, "headers"));
  }
  if (const auto* args = value.find("args")) {
    if (!server.url.empty() && args->kind != Kind::null)
      in.fail(joinPath(server_path, "args"), "only allowed with command");
    server.args = in.stringList(*args, joinPath(server_path, "args"));
  }
  if (const auto* tools = value.find("allowed_tools")) {
    const std::string tools_path = joinPath(server_path, "allowed_tools");
    server.allowed_tools = in.stringList(*tools, tools_path);
    for (std::size_t i = 0; i < server.allowed_tools.size(); ++i)
      if (!isValidMcpToolName(server.allowed_tools[i]))
        in.fail(indexedPath(tools_path, i), "tool name must match [A-Za-z0-9_-]{1,64}");
  }
  return server;
}

}  // namespace

void readMcpServers(DefinitionReader& in, const ConfigValue& v, const std::string& path,
                    sdk::agents::AgentSpec& spec) {
  if (v.kind == Kind::null || !in.expectKind(v, Kind::object, path)) return;
  for (const auto& [name, value] : v.members) {
    const std::string server_path = joinPath(path, name);
    if (!isValidMcpServerName(name)) {
      in.fail(server_path, "server name must match [A-Za-z0-9_-]{1,40}");
      continue;
    }
    if (!in.expectKind(value, Kind::object, server_path)) continue;
    spec.mcp_servers.push_back(readServer(in, name, value, server_path));
  }
}

}  // namespace abx::plugins::agents
