#include "agents_routes.h"

#include <chrono>
#include <map>
#include <utility>
#include <variant>

#include "abx/sdk/route_table.h"
#include "definition/agent_definition.h"
#include "definition/public_view.h"
#include "definition/sdk_agent_body.h"
#include "json_fields.h"
#include "openai_error.h"
#include "ownership.h"
#include "runtime/id_factory.h"
#include "secrets/secret_bag.h"
#include "session_objects.h"
#include "state/secret_leaves.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using Ctx = std::shared_ptr<const AgentsRoutesContext>;

// The Agent object: the SDK's required fields around the definition's
// public view (secrets as "***"); its model is the one asked for, else the
// definition's, else the runtime.
std::string agentJson(const AgentCatalog::Definition& d) {
  const auto& spec = d.spec;
  sdk::JsonWriter w(2048);
  w.beginObject();
  writePublicDefinitionMembers(w, spec, d.credential_refs, d.shownModel(), d.stored.named,
                               d.stored.git_depth);
  w.member("id", spec.name).member("object", "agent");
  w.member("created_at", d.created_at).member("updated_at", d.updated_at);
  w.key("metadata");
  writeTextMap(w, d.stored.metadata);
  writeAgentSettings(w);
  w.key("tools");
  writePublicMcpTools(w, spec);
  // Only after a restart without a state key: the secrets to send again.
  if (!d.stored.secrets_not_kept.empty())
    w.key("secrets_not_kept").value(d.stored.secrets_not_kept);
  w.endObject();
  return w.take();
}

}  // namespace

std::string sessionAgentJson(const AgentCatalog::Definition& d, const SessionOverrides& overrides) {
  auto spec = d.spec;
  if (!overrides.instructions.empty())
    spec.instructions += (spec.instructions.empty() ? "" : "\n\n") + overrides.instructions;
  spec.mcp_servers.insert(spec.mcp_servers.end(), overrides.mcp_servers.begin(),
                          overrides.mcp_servers.end());
  sdk::JsonWriter w(1024);
  w.beginObject().member("id", spec.name).key("name");
  d.stored.named ? w.value(spec.name) : w.null();
  w.key("instructions");
  writeTextOrNull(w, spec.instructions);
  w.member("model", d.shownModel());
  writeAgentSettings(w);
  w.key("tools");
  writePublicMcpTools(w, spec);
  w.endObject();
  return w.take();
}

namespace {

sdk::Response notFound(const std::string& id) {
  return openAiError(
      {.status = 404, .message = "No agent with id '" + id + "' found.", .code = "not_found"});
}

sdk::Response lockedResponse() {
  return openAiError(
      {.status = 403,
       .message = "Agent definitions are locked on this server (ABX_AGENTS_LOCK_DEFINITIONS=1); "
                  "only the definitions of ABX_AGENTS_CONFIG run.",
       .code = "definitions_locked"});
}

// A credential reference may name only a vault its registrant may use: a
// definition is shared, so a reference to another identity's vault would
// hand that identity's secret to every caller's turns.
std::optional<sdk::Response> foreignVault(const Ctx& ctx, const std::vector<CredentialRef>& refs,
                                          const sdk::Identity& caller) {
  for (const auto& ref : refs)
    if (!ctx->vaults || !visibleVault(*ctx->vaults, ref.vault, caller))
      return openAiError({.status = 404,
                          .message = "No vault with id '" + ref.vault + "' found.",
                          .code = "not_found",
                          .param = ref.slot});
  return std::nullopt;
}

sdk::Response badField(const DefinitionError& e) {
  return openAiError(
      {.status = 400, .message = e.text(), .code = "invalid_request", .param = e.path});
}

// What an update merges over: the stored body, or for a config-file
// definition (no body) its name, runtime and model.
ConfigValue storedBody(const AgentCatalog::Definition& d) {
  if (d.stored.body.kind == ConfigValue::Kind::object) return d.stored.body;
  auto text = [](const std::string& s) {
    ConfigValue v;
    v.kind = ConfigValue::Kind::string;
    v.text = s;
    return v;
  };
  ConfigValue body;
  body.kind = ConfigValue::Kind::object;
  body.members.emplace_back("name", text(d.spec.name));
  body.members.emplace_back("runtime", text(d.spec.runtime));
  if (!d.spec.model.empty()) body.members.emplace_back("model", text(d.spec.model));
  return body;
}

// The body to register: a new agent's (its id: the name, else a new
// agent_<hex>), or an update merged over the stored one.
std::variant<std::pair<ConfigValue, std::string>, sdk::Response> bodyToStore(
    const Ctx& ctx, const sdk::Request& r, const std::string& updated_id) {
  auto request = configFromJson(r.json);
  if (request.kind != ConfigValue::Kind::object)
    return badField({"", "The request body must be a JSON object."});
  const ConfigValue* name = request.find("name");
  if (updated_id.empty())
    return std::pair{
        request, name && name->kind == ConfigValue::Kind::string ? name->text : randomId("agent")};
  auto current = ctx->catalog->definition(updated_id);
  if (!current) return notFound(updated_id);
  // The name is the id: it can be cleared (the agent stays), never changed.
  if (name && name->kind != ConfigValue::Kind::null &&
      (!current->stored.named || name->kind != ConfigValue::Kind::string ||
       name->text != updated_id))
    return openAiError({.status = 400,
                        .message = "The name of an agent cannot change.",
                        .code = "invalid_request",
                        .param = "name"});
  return std::pair{mergeAgentBody(storedBody(*current), request), updated_id};
}

std::optional<sdk::Response> adapterRefusal(const AgentCatalog& catalog,
                                            const sdk::agents::AgentSpec& spec) {
  auto* adapter = catalog.adapter(spec.runtime);
  if (!adapter) return std::nullopt;
  auto problems = adapter->validate(spec);
  if (problems.empty()) return std::nullopt;
  std::string message;
  for (const auto& p : problems) message += (message.empty() ? "" : "; ") + p;
  return openAiError(
      {.status = 400, .message = message, .code = "invalid_request", .param = "runtime"});
}

// Translates the SDK's fields, parses, validates against the runtime's adapter, registers.
sdk::Response store(const Ctx& ctx, const sdk::Request& r, const std::string& updated_id) {
  auto to_store = bodyToStore(ctx, r, updated_id);
  if (auto* refused = std::get_if<sdk::Response>(&to_store)) return std::move(*refused);
  auto& [body, id] = std::get<std::pair<ConfigValue, std::string>>(to_store);
  auto* catalog = ctx->catalog;
  auto translated = translateAgentBody(body, id, [catalog](std::string_view name) {
    auto* adapter = catalog->adapter(std::string(name));
    return adapter ? std::optional<std::string>(adapter->name()) : std::nullopt;
  });
  if (auto* e = std::get_if<DefinitionError>(&translated)) return badField(*e);
  auto& agent = std::get<AgentBody>(translated);
  auto parsed = parseAgentDefinitionBody(agent.definition, [catalog](std::string_view runtime) {
    return catalog->adapter(std::string(runtime)) != nullptr;
  });
  if (!parsed.ok())
    return openAiError({.status = 400,
                        .message = parsed.errorText(),
                        .code = "invalid_request",
                        .param = parsed.errors.front().path});
  auto& spec = parsed.spec;
  if (auto refused = adapterRefusal(*catalog, spec)) return *refused;
  if (auto refused = foreignVault(ctx, parsed.credential_refs, r.identity)) return *refused;
  if (updated_id.empty() && catalog->definition(spec.name))
    return openAiError({.status = 409,
                        .message = "An agent named '" + spec.name +
                                   "' exists; update it with POST /v1/agents/" + spec.name + ".",
                        .code = "conflict",
                        .param = "name"});
  const auto bag = SecretBag::of(spec);
  if (ctx->host_redactor)
    for (const auto& secret : bag.values()) ctx->host_redactor->addSecret(secret);
  if (ctx->log)
    for (const auto& warning : registrationWarnings(spec, !parsed.credential_refs.empty()))
      ctx->log->warn(warning);
  AgentCatalog::Stored stored{std::move(body),        std::move(agent.metadata),   agent.named,
                              std::move(agent.model), std::move(agent.definition), {}};
  // A merge over a body whose secrets a restart lost keeps the ones not sent again lost.
  stored.secrets_not_kept = secretsNotKept(stored.body);
  stored.git_depth = parsed.git_depth;
  catalog->put(std::move(spec), unixNow(), std::move(parsed.credential_refs), std::move(stored));
  return sdk::Response::json(agentJson(*catalog->definition(id)));
}

sdk::Response listAgents(const Ctx& ctx, const sdk::Request& r) {
  auto filter = metadataFilter(r);
  if (auto* bad = std::get_if<WireError>(&filter)) return openAiError(*bad);
  PageItems items;
  for (const auto& d : ctx->catalog->definitions())
    if (matchesMetadata(std::get<MetadataFilter>(filter), d.stored.metadata))
      items.emplace_back(d.spec.name, agentJson(d));
  return pageResponse(r, std::move(items));
}

}  // namespace

namespace {

/** The parts of the Agents API this server does not offer, by path. */
struct UnsupportedPart {
  const char* path;
  const char* what;
};
constexpr UnsupportedPart kUnsupported[] = {
    {"/v1/agents/environments", "environments"},
    {"/v1/agents/environments/templates", "environment templates"},
    {"/v1/agents/environments/{id}", "environments"},
    {"/v1/agents/automations", "automations"},
    {"/v1/agents/automations/{id}", "automations"},
    {"/v1/agents/sessions/{id}/artifacts", "session artifacts"},
    {"/v1/agents/sessions/{id}/artifacts/{artifact_id}", "session artifacts"},
    {"/v1/agents/sessions/{id}/traces", "session traces"},
    {"/v1/agents/sessions/{id}/subagents", "subagents"},
    {"/v1/agents/sessions/{id}/subagents/{subagent_id}", "subagents"},
};

/** What each unsupported endpoint id names. */
using UnsupportedNames = std::map<std::string, std::string, std::less<>>;

sdk::Response unsupported(const UnsupportedNames& names, const sdk::Request& r) {
  auto it = names.find(r.endpoint);
  const std::string what = it == names.end() ? "parts" : it->second;
  return openAiError({.status = 400,
                      .message = "The Agents API's " + what +
                                 " are not supported by this server; it hosts agent CLIs "
                                 "through sessions, turns and items.",
                      .code = "unsupported_endpoint"});
}

}  // namespace

sdk::Status addUnsupportedAgentsRoutes(sdk::RouteRegistry& registry) {
  auto names = std::make_shared<UnsupportedNames>();
  std::vector<std::string> ids, summaries;  // the rows point into them until added
  for (const auto& part : kUnsupported)
    for (int method = 0; method < 3; ++method) {
      ids.push_back("agents_unsupported_" + std::to_string(ids.size() + 1));
      summaries.push_back(std::string("Not offered by this server: ") + part.what);
      (*names)[ids.back()] = part.what;
    }
  std::vector<sdk::RouteRow<const UnsupportedNames&>> rows;
  std::size_t n = 0;
  for (const auto& part : kUnsupported)
    for (const char* method : {"GET", "POST", "DELETE"}) {
      rows.push_back(
          {method, part.path, ids[n].c_str(), summaries[n].c_str(), {"agents:run"}, &unsupported});
      ++n;
    }
  std::shared_ptr<const UnsupportedNames> context = names;
  return sdk::addRoutes(registry, "agents", context, rows);
}

sdk::Status addAgentsRoutes(sdk::RouteRegistry& registry, Ctx context) {
  return sdk::addSharedRoutes(registry, "agents", std::move(context),
                              {
                                  {"POST",
                                   "/v1/agents",
                                   "agents_create",
                                   "Register an agent definition",
                                   {"agents:admin"},
                                   [](const Ctx& ctx, const sdk::Request& r) {
                                     if (ctx->locked) return lockedResponse();
                                     return store(ctx, r, "");
                                   }},
                                  {"GET",
                                   "/v1/agents",
                                   "agents_list",
                                   "Agent definitions (secrets as ***)",
                                   {"agents:admin"},
                                   &listAgents},
                                  {"GET",
                                   "/v1/agents/{id}",
                                   "agents_get",
                                   "One agent definition",
                                   {"agents:admin"},
                                   [](const Ctx& ctx, const sdk::Request& r) {
                                     const std::string id(r.param("id").value_or(""));
                                     auto d = ctx->catalog->definition(id);
                                     return d ? sdk::Response::json(agentJson(*d)) : notFound(id);
                                   }},
                                  {"POST",
                                   "/v1/agents/{id}",
                                   "agents_update",
                                   "Update an agent definition (a merge)",
                                   {"agents:admin"},
                                   [](const Ctx& ctx, const sdk::Request& r) {
                                     if (ctx->locked) return lockedResponse();
                                     return store(ctx, r, std::string(r.param("id").value_or("")));
                                   }},
                                  {"DELETE",
                                   "/v1/agents/{id}",
                                   "agents_delete",
                                   "Delete an agent definition",
                                   {"agents:admin"},
                                   [](const Ctx& ctx, const sdk::Request& r) {
                                     if (ctx->locked) return lockedResponse();
                                     const std::string id(r.param("id").value_or(""));
                                     if (!ctx->catalog->erase(id)) return notFound(id);
                                     return deletedResponse(id, "agent.deleted");
                                   }},
                              });
}

}  // namespace abx::plugins::agents
