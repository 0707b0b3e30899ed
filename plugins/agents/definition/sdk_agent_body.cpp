// The SDK's agent fields against the definition schema: what is translated
// (model, name, tools, metadata), what only its default may say (text,
// service_tier, reasoning, compaction, multi_agent, experimental), and the
// merge of an update. Field checks shared with definitions come from
// definition_rules.h.
#include "definition/sdk_agent_body.h"

#include <algorithm>
#include <initializer_list>

#include "definition/definition_reader.h"
#include "definition/definition_rules.h"

namespace abx::plugins::agents {
namespace {

using Kind = ConfigValue::Kind;

// The SDK's members this file takes out of a body; the rest is definition schema.
constexpr std::string_view kSdkOnly[] = {"metadata",    "tools",        "reasoning",
                                         "text",        "service_tier", "compaction",
                                         "multi_agent", "experimental"};

ConfigValue stringNode(std::string text) {
  ConfigValue v;
  v.kind = Kind::string;
  v.text = std::move(text);
  return v;
}

bool given(const ConfigValue* v) { return v != nullptr && v->kind != Kind::null; }

DefinitionError problem(std::string path, std::string message) {
  return {std::move(path), std::move(message)};
}

std::optional<DefinitionError> expectObject(const ConfigValue& v, const std::string& path) {
  if (v.kind == Kind::object) return std::nullopt;
  return problem(path, "must be an object (got " + std::string(kindName(v.kind)) + ")");
}

// The first member of @p object not in @p allowed.
std::optional<DefinitionError> unknownKey(const ConfigValue& object, const std::string& path,
                                          std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.members)
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      return problem(joinPath(path, key), "is not supported by this server");
  return std::nullopt;
}

// Member @p key of @p object: null/absent, or a string among @p accepted.
std::optional<DefinitionError> onlyStrings(const ConfigValue& object, std::string_view key,
                                           const std::string& path,
                                           std::initializer_list<std::string_view> accepted,
                                           std::string_view why) {
  const ConfigValue* v = object.find(key);
  if (!given(v)) return std::nullopt;
  if (v->kind == Kind::string &&
      std::find(accepted.begin(), accepted.end(), v->text) != accepted.end())
    return std::nullopt;
  return problem(joinPath(path, key), "'" + v->text + "' is not supported: " + std::string(why));
}

// Member @p key of @p object: null/absent, or the boolean @p accepted.
std::optional<DefinitionError> onlyBoolean(const ConfigValue& object, std::string_view key,
                                           const std::string& path, bool accepted,
                                           std::string_view why) {
  const ConfigValue* v = object.find(key);
  if (!given(v) || (v->kind == Kind::boolean && v->boolean == accepted)) return std::nullopt;
  return problem(joinPath(path, key), "must be " + std::string(accepted ? "true" : "false") +
                                          " or null here: " + std::string(why));
}

using SettingCheck = std::optional<DefinitionError> (*)(const ConfigValue&, const std::string&);

std::optional<DefinitionError> textSetting(const ConfigValue& v, const std::string& path) {
  if (auto e = expectObject(v, path)) return e;
  if (auto e = unknownKey(v, path, {"format", "verbosity"})) return e;
  if (const ConfigValue* format = v.find("format"); given(format)) {
    const std::string format_path = joinPath(path, "format");
    if (auto e = expectObject(*format, format_path)) return e;
    const ConfigValue* type = format->find("type");
    if (!given(type) || type->kind != Kind::string || type->text != "text")
      return problem(format_path,
                     "only {\"type\": \"text\"} is supported: agent runtimes answer "
                     "in plain text");
    if (auto e = unknownKey(*format, format_path, {"type"})) return e;
  }
  return onlyStrings(v, "verbosity", path, {"medium"}, "agent runtimes have no verbosity setting");
}

std::optional<DefinitionError> reasoningSetting(const ConfigValue& v, const std::string& path) {
  if (auto e = expectObject(v, path)) return e;
  if (auto e = unknownKey(v, path, {"effort", "summary"})) return e;
  for (std::string_view key : {"effort", "summary"})
    if (given(v.find(key)))
      return problem(joinPath(path, key),
                     "is not supported on an agent: the definition schema has no reasoning "
                     "option (give reasoning.effort on a session or a response instead)");
  return std::nullopt;
}

// A setting object whose one flag may only hold its default (@p extra: a
// member that means nothing while the flag does).
struct FlagSetting {
  std::string_view setting, flag, extra;
  bool accepted;
  std::string_view why;
};
constexpr FlagSetting kFlagSettings[] = {
    {"compaction", "async", "async", true, "agent runtimes compact their own context"},
    {"multi_agent", "enabled", "max_concurrent_subagents", false,
     "this server offers no subagents"},
    {"experimental", "time_awareness", "time_awareness", false,
     "agent runtimes have no such setting"}};

std::optional<DefinitionError> flagSetting(const ConfigValue& v, const std::string& path,
                                           const FlagSetting& setting) {
  if (auto e = expectObject(v, path)) return e;
  if (auto e = unknownKey(v, path, {setting.flag, setting.extra})) return e;
  return onlyBoolean(v, setting.flag, path, setting.accepted, setting.why);
}

std::optional<DefinitionError> stringsObject(const ConfigValue& v, const std::string& path) {
  if (auto e = expectObject(v, path)) return e;
  for (const auto& [key, value] : v.members)
    if (value.kind != Kind::string) return problem(joinPath(path, key), "must be a string");
  return std::nullopt;
}

// An http transport as {url, headers}; `authorization` becomes an Authorization header.
std::optional<DefinitionError> httpTransport(const ConfigValue& t, const std::string& path,
                                             ConfigValue& server) {
  if (auto e = unknownKey(t, path, {"type", "server_url", "headers", "authorization"})) return e;
  const ConfigValue* url = t.find("server_url");
  if (!given(url) || url->kind != Kind::string)
    return problem(joinPath(path, "server_url"), "is required (a string)");
  if (auto p = httpUrlProblem(url->text)) return problem(joinPath(path, "server_url"), *p);
  server.members.emplace_back("url", *url);
  ConfigValue headers;
  headers.kind = Kind::object;
  if (const ConfigValue* h = t.find("headers"); given(h)) {
    if (auto e = stringsObject(*h, joinPath(path, "headers"))) return e;
    headers = *h;
  }
  if (const ConfigValue* auth = t.find("authorization"); given(auth)) {
    if (auth->kind != Kind::string)
      return problem(joinPath(path, "authorization"), "must be a string");
    if (headers.find("Authorization"))
      return problem(joinPath(path, "authorization"), "and headers.Authorization both set it");
    headers.members.emplace_back("Authorization", stringNode("Bearer " + auth->text));
  }
  if (!headers.members.empty()) server.members.emplace_back("headers", std::move(headers));
  return std::nullopt;
}

std::optional<DefinitionError> stdioTransport(const ConfigValue& t, const std::string& path,
                                              ConfigValue& server) {
  if (auto e = unknownKey(t, path, {"type", "command", "args", "cwd", "env_vars"})) return e;
  const ConfigValue* command = t.find("command");
  if (!given(command) || command->kind != Kind::string || command->text.empty())
    return problem(joinPath(path, "command"), "is required (a string)");
  server.members.emplace_back("command", *command);
  if (const ConfigValue* args = t.find("args"); given(args))
    server.members.emplace_back("args", *args);
  // The CLI starts its MCP servers in the agent's workspace: any cwd names it.
  if (const ConfigValue* cwd = t.find("cwd"); given(cwd) && cwd->kind != Kind::string)
    return problem(joinPath(path, "cwd"), "must be a string");
  if (const ConfigValue* vars = t.find("env_vars"); given(vars)) {
    if (vars->kind != Kind::array) return problem(joinPath(path, "env_vars"), "must be a list");
    if (!vars->items.empty())
      return problem(joinPath(path, "env_vars"),
                     "is not supported: an MCP server inherits the agent's environment");
  }
  return std::nullopt;
}

std::optional<DefinitionError> mcpTool(const ConfigValue& tool, const std::string& path,
                                       bool allow_stdio, SdkMcpTool& out) {
  if (auto e = unknownKey(tool, path,
                          {"type", "server_label", "transport", "allowed_tools",
                           "connection_origin", "credential_id", "request_metadata", "required"}))
    return e;
  const ConfigValue* label = tool.find("server_label");
  if (!given(label) || label->kind != Kind::string || !isValidMcpServerName(label->text))
    return problem(joinPath(path, "server_label"), "must match [A-Za-z0-9_-]{1,40}");
  out.label = label->text;
  out.server.kind = Kind::object;
  const ConfigValue* transport = tool.find("transport");
  const std::string transport_path = joinPath(path, "transport");
  if (!given(transport)) return problem(transport_path, "is required");
  if (auto e = expectObject(*transport, transport_path)) return e;
  const ConfigValue* type = transport->find("type");
  const std::string type_text = given(type) ? type->text : "";
  if (type_text == "http") {
    if (auto e = httpTransport(*transport, transport_path, out.server)) return e;
  } else if (type_text == "stdio" && allow_stdio) {
    if (auto e = stdioTransport(*transport, transport_path, out.server)) return e;
  } else {
    return problem(joinPath(transport_path, "type"),
                   type_text == "stdio" ? "stdio MCP servers need an agent definition; a session "
                                          "may add http ones only"
                                        : "must be http or stdio");
  }
  if (const ConfigValue* allowed = tool.find("allowed_tools"); given(allowed)) {
    // A list of names; anything else would read as "every tool".
    if (allowed->kind != Kind::array)
      return problem(joinPath(path, "allowed_tools"), "must be a list of tool names or null");
    out.server.members.emplace_back("allowed_tools", *allowed);
  }
  if (auto e = onlyStrings(tool, "connection_origin", path, {"environment"},
                           "MCP connections start from the agent's CLI"))
    return e;
  if (given(tool.find("credential_id")))
    return problem(joinPath(path, "credential_id"),
                   "is not supported: a session's vault_ids give MCP credentials by URL");
  if (const ConfigValue* meta = tool.find("request_metadata"); given(meta)) {
    if (auto e = expectObject(*meta, joinPath(path, "request_metadata"))) return e;
    if (!meta->members.empty())
      return problem(joinPath(path, "request_metadata"), "is not supported by agent CLIs");
  }
  return onlyBoolean(tool, "required", path, false, "agent CLIs start MCP servers on their own");
}

}  // namespace

ModelChoice chooseRuntime(std::string_view model, std::string_view runtime,
                          const RuntimeLookup& runtimes, std::string_view fallback) {
  const auto named = model.empty() ? std::nullopt : runtimes(model);
  if (!runtime.empty()) return {std::string(runtime), named ? "" : std::string(model)};
  if (named) return {*named, ""};
  if (const auto slash = model.find('/'); slash != std::string_view::npos && slash > 0)
    if (auto prefix = runtimes(model.substr(0, slash)))
      return {*prefix, std::string(model.substr(slash + 1))};
  return {std::string(fallback), std::string(model)};
}

std::optional<DefinitionError> readMetadata(const ConfigValue& v, const std::string& path,
                                            std::map<std::string, std::string>& out) {
  out.clear();
  if (v.kind == Kind::null) return std::nullopt;
  if (auto e = expectObject(v, path)) return e;
  if (v.members.size() > 16) return problem(path, "holds more than 16 pairs");
  for (const auto& [key, value] : v.members) {
    if (key.empty() || key.size() > 64)
      return problem(path, "key '" + key.substr(0, 80) + "' must be 1 to 64 characters");
    if (value.kind != Kind::string) return problem(joinPath(path, key), "must be a string");
    if (value.text.size() > 512) return problem(joinPath(path, key), "is over 512 characters");
    out[key] = value.text;
  }
  return std::nullopt;
}

std::optional<DefinitionError> defaultOnlySettings(const ConfigValue& object,
                                                   std::string_view prefix) {
  static const std::pair<std::string_view, SettingCheck> kChecks[] = {
      {"text", &textSetting}, {"reasoning", &reasoningSetting}};
  for (const auto& [key, check] : kChecks)
    if (const ConfigValue* v = object.find(key); given(v))
      if (auto e = check(*v, joinPath(prefix, key))) return e;
  for (const auto& setting : kFlagSettings)
    if (const ConfigValue* v = object.find(setting.setting); given(v))
      if (auto e = flagSetting(*v, joinPath(prefix, setting.setting), setting)) return e;
  return onlyStrings(object, "service_tier", std::string(prefix), {"auto", "default"},
                     "agent runtimes choose their own service tier");
}

std::optional<DefinitionError> readSdkTools(const ConfigValue& tools, const std::string& path,
                                            bool allow_stdio, std::vector<SdkMcpTool>& out) {
  if (tools.kind == Kind::null) return std::nullopt;
  if (tools.kind != Kind::array)
    return problem(path, "must be an array (got " + std::string(kindName(tools.kind)) + ")");
  for (std::size_t i = 0; i < tools.items.size(); ++i) {
    const auto& tool = tools.items[i];
    const std::string tool_path = indexedPath(path, i);
    if (auto e = expectObject(tool, tool_path)) return e;
    const ConfigValue* type = tool.find("type");
    const std::string type_text = given(type) && type->kind == Kind::string ? type->text : "";
    if (type_text != "mcp")
      return problem(joinPath(tool_path, "type"),
                     "tools of type '" + type_text +
                         "' are not supported: agent runtimes run their own tools; only 'mcp' "
                         "tools are passed through");
    SdkMcpTool parsed;
    if (auto e = mcpTool(tool, tool_path, allow_stdio, parsed)) return e;
    for (const auto& earlier : out)
      if (earlier.label == parsed.label)
        return problem(joinPath(tool_path, "server_label"), "repeats '" + parsed.label + "'");
    out.push_back(std::move(parsed));
  }
  return std::nullopt;
}

std::variant<AgentBody, DefinitionError> translateAgentBody(const ConfigValue& body,
                                                            std::string_view id,
                                                            const RuntimeLookup& runtimes) {
  if (body.kind != Kind::object) return problem("", "The request body must be a JSON object.");
  if (auto e = defaultOnlySettings(body, "")) return *e;
  AgentBody out;
  if (const ConfigValue* meta = body.find("metadata"))
    if (auto e = readMetadata(*meta, "metadata", out.metadata)) return *e;
  std::vector<SdkMcpTool> tools;
  if (const ConfigValue* t = body.find("tools"))
    if (auto e = readSdkTools(*t, "tools", /*allow_stdio=*/true, tools)) return *e;
  const ConfigValue* model = body.find("model");
  const ConfigValue* runtime = body.find("runtime");
  if (given(model) && (model->kind != Kind::string || model->text.empty()))
    return problem("model", "must be a non-empty string");
  if (!given(model) && !given(runtime))
    return problem("model", "Missing required parameter: 'model'.");
  out.model = given(model) ? model->text : "";
  const bool explicit_runtime = given(runtime) && runtime->kind == Kind::string;
  const auto choice =
      chooseRuntime(out.model, explicit_runtime ? runtime->text : "", runtimes, kDefaultRuntime);
  auto& def = out.definition;
  def.kind = Kind::object;
  const ConfigValue* name = body.find("name");
  out.named = given(name);
  def.members.emplace_back("name", out.named ? *name : stringNode(std::string(id)));
  def.members.emplace_back(
      "runtime", given(runtime) && !explicit_runtime ? *runtime : stringNode(choice.runtime));
  if (!choice.model.empty()) def.members.emplace_back("model", stringNode(choice.model));
  for (const auto& [key, value] : body.members) {
    if (key == "name" || key == "runtime" || key == "model") continue;
    if (std::find(std::begin(kSdkOnly), std::end(kSdkOnly), key) != std::end(kSdkOnly)) continue;
    def.members.emplace_back(key, value);
  }
  if (tools.empty()) return out;
  // The tools join the mcp_servers extension (the parser checks them as it checks those).
  auto servers = std::find_if(def.members.begin(), def.members.end(),
                              [](const auto& member) { return member.first == "mcp_servers"; });
  if (servers == def.members.end())
    servers = def.members.insert(def.members.end(), {"mcp_servers", ConfigValue{}});
  if (servers->second.kind == Kind::null) servers->second.kind = Kind::object;
  if (servers->second.kind != Kind::object) return out;  // the parser names mcp_servers
  for (std::size_t i = 0; i < tools.size(); ++i) {
    if (servers->second.find(tools[i].label))
      return problem(joinPath(indexedPath("tools", i), "server_label"),
                     "names a server mcp_servers defines too");
    servers->second.members.emplace_back(tools[i].label, std::move(tools[i].server));
  }
  return out;
}

ConfigValue mergeAgentBody(const ConfigValue& stored, const ConfigValue& update) {
  ConfigValue merged = stored;
  merged.kind = Kind::object;
  for (const auto& change : update.members) {
    auto& members = merged.members;
    members.erase(std::remove_if(members.begin(), members.end(),
                                 [&](const auto& member) { return member.first == change.first; }),
                  members.end());
    if (change.second.kind != Kind::null) members.push_back(change);
  }
  return merged;
}

}  // namespace abx::plugins::agents
