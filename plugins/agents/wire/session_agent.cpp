// The shared checks (model rule aside) are the agent objects' own, from
// definition/sdk_agent_body.h, read over the body as a ConfigValue.
#include "session_agent.h"

#include <algorithm>
#include <initializer_list>

#include "definition/config_tree.h"
#include "definition/definition_rules.h"
#include "definition/sdk_agent_body.h"

namespace abx::plugins::agents {
namespace {

using Kind = ConfigValue::Kind;

WireError bad(std::string param, std::string message) {
  return WireError{.status = 400,
                   .message = std::move(message),
                   .code = "invalid_request",
                   .param = std::move(param)};
}

WireError bad(const DefinitionError& e) { return bad(e.path, e.text()); }

bool given(const ConfigValue* v) { return v != nullptr && v->kind != Kind::null; }

std::optional<WireError> unknownKey(const ConfigValue& object, const std::string& prefix,
                                    std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.members)
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      return bad(prefix.empty() ? key : prefix + "." + key, "'" + key +
                                                                "' is not supported by this "
                                                                "server.");
  return std::nullopt;
}

// review: none; spend_control: null or {limit: null}.
std::optional<WireError> reviewAndSpend(const ConfigValue& body) {
  if (const ConfigValue* review = body.find("review");
      given(review) && (review->kind != Kind::string || review->text != "none"))
    return bad("review", "Only review 'none' is supported: agent CLIs run their own approvals.");
  if (const ConfigValue* spend = body.find("spend_control"); given(spend)) {
    const ConfigValue* limit = spend->find("limit");
    if (spend->kind != Kind::object || given(limit))
      return bad("spend_control",
                 "Spending limits in cents are not supported; an agent definition's "
                 "limits.max_budget_usd caps a turn.");
  }
  return std::nullopt;
}

std::optional<WireError> sameModel(const ConfigValue& agent, const AgentModels& agent_models) {
  const ConfigValue* model = agent.find("model");
  if (!given(model) || (model->kind == Kind::string &&
                        (model->text == agent_models.id || model->text == agent_models.model)))
    return std::nullopt;
  return bad("agent.model", "A session runs its agent's model ('" + agent_models.model +
                                "'); create an agent for another model.");
}

// reasoning: {effort} goes to each turn (as on the Responses wire); a summary is refused.
std::optional<WireError> readReasoning(const ConfigValue& agent, SessionOverrides& out) {
  const ConfigValue* reasoning = agent.find("reasoning");
  if (!reasoning) return std::nullopt;
  if (reasoning->kind == Kind::null) {
    out.reasoning_effort.clear();
    return std::nullopt;
  }
  if (reasoning->kind != Kind::object) return bad("agent.reasoning", "must be an object");
  if (auto e = unknownKey(*reasoning, "agent.reasoning", {"effort", "summary"})) return e;
  if (given(reasoning->find("summary")))
    return bad("agent.reasoning.summary", "Reasoning summaries are not supported.");
  const ConfigValue* effort = reasoning->find("effort");
  if (!effort) return std::nullopt;
  if (effort->kind == Kind::null) {
    out.reasoning_effort.clear();
    return std::nullopt;
  }
  static constexpr std::string_view kEfforts[] = {"none", "minimal", "low", "medium",
                                                  "high", "xhigh",   "max"};
  if (effort->kind != Kind::string ||
      std::find(std::begin(kEfforts), std::end(kEfforts), effort->text) == std::end(kEfforts))
    return bad("agent.reasoning.effort", "must be none, minimal, low, medium, high, xhigh or max");
  out.reasoning_effort = effort->text;
  return std::nullopt;
}

// tools: http mcp tools only; every header value is secret (redacted, never echoed).
std::optional<WireError> readTools(const ConfigValue& agent, SessionOverrides& out) {
  const ConfigValue* tools = agent.find("tools");
  if (!tools) return std::nullopt;
  std::vector<SdkMcpTool> parsed;
  if (auto e = readSdkTools(*tools, "agent.tools", /*allow_stdio=*/false, parsed)) return bad(*e);
  out.mcp_servers.clear();
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const std::string path = "agent.tools[" + std::to_string(i) + "]";
    sdk::agents::McpServerSpec server;
    server.name = parsed[i].label;
    server.url = parsed[i].server.find("url")->text;
    if (const ConfigValue* headers = parsed[i].server.find("headers"))
      for (const auto& [name, value] : headers->members) {
        if (!isValidHeaderName(name) || headerValueProblem(value.text))
          return bad(path + ".transport.headers." + name,
                     "must be a valid HTTP header with a value without CR, LF or NUL");
        server.headers.push_back({name, value.text, true});
      }
    if (const ConfigValue* allowed = parsed[i].server.find("allowed_tools"))
      for (std::size_t j = 0; j < allowed->items.size(); ++j) {
        const auto& name = allowed->items[j];
        if (name.kind != Kind::string || !isValidMcpToolName(name.text))
          return bad(path + ".allowed_tools[" + std::to_string(j) + "]",
                     "An MCP tool name must match [A-Za-z0-9_-]{1,64}.");
        server.allowed_tools.push_back(name.text);
      }
    out.mcp_servers.push_back(std::move(server));
  }
  return std::nullopt;
}

// environment: none, or self_hosted with a workspace_directory inside the agent's workspace.
std::optional<WireError> readEnvironment(const ConfigValue& body, const std::string& workspace,
                                         SessionOverrides& out) {
  const ConfigValue* env = body.find("environment");
  if (!given(env)) return std::nullopt;
  if (env->kind != Kind::object) return bad("environment", "must be an object");
  const ConfigValue* type = env->find("type");
  const std::string type_text = given(type) ? type->text : "";
  if (type_text == "none") return unknownKey(*env, "environment", {"type"});
  if (type_text != "self_hosted")
    return bad("environment.type",
               "Only environments of type 'none' and 'self_hosted' are "
               "supported: agents run on this server.");
  if (auto e = unknownKey(*env, "environment",
                          {"type", "workspace_directory", "capability_directories"}))
    return e;
  if (const ConfigValue* dirs = env->find("capability_directories");
      given(dirs) && !dirs->items.empty())
    return bad("environment.capability_directories", "Capability directories are not supported.");
  const ConfigValue* dir = env->find("workspace_directory");
  if (!given(dir) || dir->kind != Kind::string)
    return bad("environment.workspace_directory", "is required (a string)");
  std::string path = dir->text;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (auto problem = workspacePathProblem(path))
    return bad("environment.workspace_directory", "workspace_directory " + *problem + ".");
  std::string root = workspace;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (path != root && !path.starts_with(root == "/" ? root : root + "/"))
    return bad("environment.workspace_directory",
               "workspace_directory must be the agent's workspace (" + root +
                   ") or a directory inside it.");
  out.workdir = path;
  return std::nullopt;
}

}  // namespace

std::optional<WireError> sessionCreateFieldsProblem(const sdk::Json& body) {
  const auto tree = configFromJson(body);
  if (auto e = unknownKey(tree, "",
                          {"agent", "agent_id", "environment", "input", "metadata", "review",
                           "spend_control", "stream", "vault_ids"}))
    return e;
  return reviewAndSpend(tree);
}

std::optional<WireError> readSessionCreate(const sdk::Json& body, const ResolvedAgent& agent,
                                           const AgentModels& agent_model, SessionOverrides& out) {
  const auto tree = configFromJson(body);
  if (auto e = readEnvironment(tree, agent.spec.workspace.path, out)) return e;
  const ConfigValue* inline_agent = tree.find("agent");
  if (!given(inline_agent)) return std::nullopt;
  if (inline_agent->kind != Kind::object) return bad("agent", "must be an object");
  if (auto e = unknownKey(*inline_agent, "agent",
                          {"model", "instructions", "tools", "reasoning", "service_tier", "text",
                           "compaction", "multi_agent", "experimental"}))
    return e;
  if (!body.get("agent_id").isAbsent())
    if (auto e = sameModel(*inline_agent, agent_model)) return e;
  ConfigValue settings = *inline_agent;  // reasoning is read here: a session honours its effort
  std::erase_if(settings.members, [](const auto& m) { return m.first == "reasoning"; });
  if (auto e = defaultOnlySettings(settings, "agent")) return bad(*e);
  if (const ConfigValue* text = inline_agent->find("instructions"); given(text)) {
    if (text->kind != Kind::string) return bad("agent.instructions", "must be a string");
    out.instructions = text->text;
  }
  if (auto e = readReasoning(*inline_agent, out)) return e;
  return readTools(*inline_agent, out);
}

std::optional<WireError> readSessionUpdate(const sdk::Json& body, const AgentModels& agent_model,
                                           SessionOverrides& out) {
  const auto tree = configFromJson(body);
  if (auto e = unknownKey(tree, "", {"agent", "metadata", "review", "spend_control"})) return e;
  if (auto e = reviewAndSpend(tree)) return e;
  const ConfigValue* inline_agent = tree.find("agent");
  if (!given(inline_agent)) return std::nullopt;
  if (inline_agent->kind != Kind::object) return bad("agent", "must be an object");
  if (auto e = unknownKey(*inline_agent, "agent", {"model", "reasoning", "service_tier", "tools"}))
    return e;
  if (auto e = sameModel(*inline_agent, agent_model)) return e;
  ConfigValue tier;
  tier.kind = Kind::object;
  if (const ConfigValue* v = inline_agent->find("service_tier"))
    tier.members.emplace_back("service_tier", *v);
  if (auto e = defaultOnlySettings(tier, "agent")) return bad(*e);
  if (auto e = readReasoning(*inline_agent, out)) return e;
  return readTools(*inline_agent, out);
}

std::optional<WireError> readSessionMetadata(const sdk::Json& value,
                                             std::map<std::string, std::string>& out) {
  if (auto e = readMetadata(configFromJson(value), "metadata", out)) return bad(*e);
  return std::nullopt;
}

}  // namespace abx::plugins::agents
