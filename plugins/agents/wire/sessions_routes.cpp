#include "sessions_routes.h"

#include <algorithm>

#include "abx/sdk/policy_limits.h"
#include "abx/sdk/route_table.h"
#include "agents_routes.h"
#include "definition_lock.h"
#include "event_position.h"
#include "json_fields.h"
#include "openai_error.h"
#include "ownership.h"
#include "runtime/id_factory.h"
#include "session_agent.h"
#include "session_feed.h"
#include "session_objects.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using Ctx = std::shared_ptr<const SessionsContext>;
sdk::Response noSession(const std::string& id) {
  return openAiError(
      {.status = 404, .message = "No session with id '" + id + "' found.", .code = "not_found"});
}

// The user's text of an input (a string or a list of messages); images and
// files are refused like on the Responses wire.
std::optional<WireError> inputMessages(const sdk::Json& input, std::vector<InputMessage>& out) {
  auto refuse = [](std::string message, const char* code = "invalid_request") {
    return WireError{.status = 400, .message = std::move(message), .code = code, .param = "input"};
  };
  if (input.isString()) {
    out.push_back({randomId("msg"), "user", std::string(input.stringView())});
    return std::nullopt;
  }
  if (!input.isArray()) return refuse("'input' must be a string or a list of messages.");
  for (const auto& message : input.elements()) {
    if (!message.isObject()) return refuse("Each input must be a message.");
    InputMessage m{randomId("msg"), "user", ""};
    const auto content = message.get("content");
    if (content.isString()) m.text = content.stringView();
    for (const auto& part : content.elements()) {
      const auto type = textOf(part.get("type"));
      if (type != "input_text")
        return refuse("Content parts of type '" + type + "' are not supported.",
                      "unsupported_parameter");
      if (!m.text.empty()) m.text += "\n";
      m.text += textOf(part.get("text"));
    }
    out.push_back(std::move(m));
  }
  if (out.empty()) return refuse("'input' holds no message.");
  return std::nullopt;
}

std::string promptOf(const std::vector<InputMessage>& messages) {
  std::string prompt;
  for (const auto& m : messages) prompt += (prompt.empty() ? "" : "\n\n") + m.text;
  return prompt;
}

// Queues a turn of @p messages with the session's vault credentials: secret
// env and MCP bearer tokens (redacted like the definition's own secrets).
sdk::Result<Turn> submit(const Ctx& ctx, const sdk::Request& r, const std::string& session_id,
                         std::vector<InputMessage> messages) {
  TurnRequest turn;
  turn.max_duration = sdk::policyMaxDuration(r.policy);
  turn.prompt = promptOf(messages);
  turn.input = std::move(messages);
  auto overrides = ctx->overrides->get(session_id);
  turn.extra_instructions = std::move(overrides.instructions);
  for (const auto& server : overrides.mcp_servers)
    for (const auto& header : server.headers) turn.extra_secrets.push_back(header.value);
  turn.extra_mcp_servers = std::move(overrides.mcp_servers);
  turn.reasoning_effort = std::move(overrides.reasoning_effort);
  turn.workdir = std::move(overrides.workdir);
  const auto session = ctx->runtime->session(session_id);
  const auto vault_ids = session ? session->vault_ids : std::vector<std::string>{};
  turn.refusal = ctx->vaults->secretsNotKept(vault_ids).value_or("");
  turn.secret_env = ctx->vaults->secretEnv(vault_ids);
  turn.mcp_bearer_tokens = ctx->vaults->mcpBearerTokens(vault_ids);
  return ctx->runtime->submitTurn(session_id, std::move(turn));
}

// What a session's AgentSession shows beside the runtime's record: its
// vault_ids and its agent as its turns get it.
SessionExtras extrasOf(const SessionsContext& ctx, const SessionInfo& session) {
  SessionExtras extras{session.vault_ids, {}};
  if (auto definition = ctx.catalog->definition(session.agent))
    extras.agent_json = sessionAgentJson(*definition, ctx.overrides->get(session.id));
  return extras;
}

std::shared_ptr<SessionStream> streamFor(const Ctx& ctx, const std::string& session_id) {
  auto* runtime = ctx->runtime;
  return ctx->streams->open(
      session_id, [runtime, session_id] { return runtime->session(session_id); },
      [ctx](const SessionInfo& session) { return extrasOf(*ctx, session); });
}

// 202 with no body (the SDK's events.create resolves to nothing): no Content-Type either.
sdk::Response accepted() {
  sdk::Response answer;
  answer.status = 202;
  answer.content_type.clear();
  return answer;
}

std::optional<std::uint64_t> resumeFrom(const sdk::Request& r) {
  auto text = r.header("last-event-id");
  if (!text) text = r.queryParam("after");
  if (!text) return std::nullopt;
  return parseEventPosition(*text);
}

// A session's agent and the model it shows: its Agent object's, or the runtime it names.
AgentModels agentModel(const AgentCatalog& catalog, const std::string& agent) {
  auto d = catalog.definition(agent);
  return {agent, d ? d->shownModel() : agent};
}

std::optional<sdk::Response> createSession(const Ctx& ctx, const sdk::Request& r,
                                           sdk::SseStream& sse) {
  const sdk::Json& body = r.json;
  if (auto e = sessionCreateFieldsProblem(body)) return openAiError(*e);
  std::string model = textOf(body.get("agent_id"));
  std::string model_param = "agent_id";
  if (const auto agent = body.get("agent"); agent.isObject() && model.empty()) {
    model = textOf(agent.get("model"));
    model_param = "agent.model";
  }
  if (model.empty())
    return openAiError({.status = 400,
                        .message = "Give agent_id or agent.model.",
                        .code = "invalid_request",
                        .param = "agent_id"});
  const auto asked_vaults = body.get("vault_ids");
  const auto asked_tools = body.get("agent").get("tools");
  if (auto locked =
          definitionLockRefusal(*ctx->catalog, {model, model_param, asked_tools.size() > 0,
                                                asked_vaults.isArray() && asked_vaults.size() > 0}))
    return openAiError(*locked);
  std::string why;
  auto resolved = ctx->catalog->resolve(model, why);
  if (!resolved) return openAiError(unresolvedAgent(*ctx->catalog, model, why, "agent_id"));
  SessionOverrides overrides;
  if (auto e = readSessionCreate(body, *resolved, agentModel(*ctx->catalog, model), overrides))
    return openAiError(*e);
  std::vector<InputMessage> input;
  if (const auto given = body.get("input"); !given.isAbsent())
    if (auto e = inputMessages(given, input)) return openAiError(*e);
  const auto stream = body.get("stream").asBoolean(false);
  if (!stream)
    return openAiError({.status = 400,
                        .message = stream.status().message(),
                        .code = "invalid_request",
                        .param = "stream"});
  if (*stream && input.empty())
    return openAiError({.status = 400,
                        .message = "A streamed session needs an 'input'.",
                        .code = "invalid_request",
                        .param = "input"});
  std::map<std::string, std::string> metadata;
  if (auto e = readSessionMetadata(body.get("metadata"), metadata)) return openAiError(*e);
  std::vector<std::string> vault_ids;
  for (const auto& id : asked_vaults.elements()) {
    auto vault = textOf(id);
    if (!visibleVault(*ctx->vaults, vault, r.identity))
      return openAiError({.status = 404,
                          .message = "No vault with id '" + vault + "' found.",
                          .code = "not_found",
                          .param = "vault_ids"});
    vault_ids.push_back(std::move(vault));
  }
  auto created = ctx->runtime->createSession(model, metadata, r.identity.id, vault_ids);
  if (!created)
    return openAiError({.status = 404,
                        .message = created.status().message(),
                        .code = "model_not_found",
                        .param = "agent_id"});
  ctx->overrides->set(created->id, std::move(overrides));
  auto session_stream = streamFor(ctx, created->id);
  session_stream->created(*created);
  const auto start = session_stream->lastSeq() - 1;
  if (!input.empty()) {
    auto submitted = submit(ctx, r, created->id, input);
    if (!submitted)
      return openAiError(
          {.status = 500, .message = submitted.status().message(), .code = "internal_error"});
  }
  if (*stream) {
    sse.begin();
    followSession(session_stream, sse, start, /*until_idle=*/true, /*subscribed=*/false);
    return std::nullopt;
  }
  auto now = ctx->runtime->session(created->id);
  return sdk::Response::json(
      sessionJson(now.value_or(*created), extrasOf(*ctx, now.value_or(*created))));
}

sdk::Response getSession(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto s = visibleSession(*ctx->runtime, id, r.identity);
  if (!s) return noSession(id);
  return sdk::Response::json(sessionJson(*s, extrasOf(*ctx, *s)));
}

// Metadata and the inline agent's overrides; every field is checked before any changes.
sdk::Response updateSession(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  if (r.json.get("agent").get("tools").size() > 0)
    if (auto locked =
            definitionLockRefusal(*ctx->catalog, {session->agent, "agent_id", true, false}))
      return openAiError(*locked);
  auto overrides = ctx->overrides->get(id);
  if (auto e = readSessionUpdate(r.json, agentModel(*ctx->catalog, session->agent), overrides))
    return openAiError(*e);
  const auto meta = r.json.get("metadata");
  std::map<std::string, std::string> metadata;
  if (auto e = readSessionMetadata(meta, metadata)) return openAiError(*e);
  if (!meta.isMissing() && !ctx->runtime->setMetadata(id, std::move(metadata)))
    return noSession(id);
  ctx->overrides->set(id, std::move(overrides));
  return getSession(ctx, r);
}

sdk::Response deleteSession(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  // The runtime tells the listener, which ends the session's stream
  // (agent.session.failed to its subscribers) and forgets its keys and vaults.
  if (!visibleSession(*ctx->runtime, id, r.identity) || !ctx->runtime->deleteSession(id))
    return noSession(id);
  return deletedResponse(id, "agent.session.deleted");
}

sdk::Response listSessions(const Ctx& ctx, const sdk::Request& r) {
  auto sessions = ctx->runtime->sessions();
  std::sort(sessions.begin(), sessions.end(), [](const SessionInfo& a, const SessionInfo& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
  });
  const auto agent = r.queryParam("agent_id");
  auto filter = metadataFilter(r);
  if (auto* bad = std::get_if<WireError>(&filter)) return openAiError(*bad);
  PageItems items;
  for (const auto& s : sessions)
    if ((!agent || s.agent == *agent) && mayActOn(r.identity, s.owner) &&
        matchesMetadata(std::get<MetadataFilter>(filter), s.metadata))
      items.emplace_back(s.id, sessionJson(s, extrasOf(*ctx, s)));
  return pageResponse(r, std::move(items));
}

sdk::Response postEvents(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  const auto events = r.json.get("events");
  if (!events.isArray() || events.size() == 0)
    return openAiError({.status = 400,
                        .message = "'events' must be a non-empty list.",
                        .code = "invalid_request",
                        .param = "events"});
  if (auto key = r.header("idempotency-key"); key && !key->empty())
    if (!ctx->keys->firstUse(id, callerKey(r.identity, *key), unixNow())) return accepted();
  streamFor(ctx, id);
  for (const auto& event : events.elements()) {
    const auto type = textOf(event.get("type"));
    if (type == "agent.session.input.message") {
      std::vector<InputMessage> input;
      if (event.get("input").isMissing())
        return openAiError({.status = 400,
                            .message = "An input message needs 'input'.",
                            .code = "invalid_request",
                            .param = "input"});
      if (auto e = inputMessages(event.get("input"), input)) return openAiError(*e);
      auto submitted = submit(ctx, r, id, std::move(input));
      if (!submitted)
        return openAiError(
            {.status = 500, .message = submitted.status().message(), .code = "internal_error"});
    } else if (type == "agent.session.input.cancel") {
      for (const auto& turn_id : ctx->runtime->session(id).value_or(*session).turn_ids)
        if (auto t = ctx->runtime->turn(turn_id); t && !isTerminal(t->status))
          (void)ctx->runtime->cancelTurn(turn_id);
    } else if (type == "agent.session.input.tool_result") {
      return openAiError(
          {.status = 400,
           .message = "Tool results are not accepted: agent runtimes run their own tools and "
                      "never ask for a client-side function call.",
           .code = "unsupported_parameter",
           .param = "events"});
    } else {
      return openAiError({.status = 400,
                          .message = "Unsupported input event type '" + type + "'.",
                          .code = "unsupported_parameter",
                          .param = "events"});
    }
  }
  return accepted();
}

std::optional<sdk::Response> streamEvents(const Ctx& ctx, const sdk::Request& r,
                                          sdk::SseStream& sse) {
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  auto stream = streamFor(ctx, id);
  if (!stream->subscribe())
    return openAiError({.status = 429,
                        .message = "This session already has " +
                                   std::to_string(SessionStream::kMaxSubscribers) +
                                   " event subscribers; close one first.",
                        .code = "too_many_subscribers"});
  const std::uint64_t after = resumeFrom(r).value_or(stream->lastSeq());
  sse.begin();  // the SDK waits for these headers before it posts the input
  followSession(stream, sse, after, /*until_idle=*/false, /*subscribed=*/true);
  return std::nullopt;
}

std::optional<Turn> turnOf(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto turn = visibleTurn(*ctx->runtime, std::string(r.param("turn_id").value_or("")), r.identity);
  if (!turn || turn->session_id != id) return std::nullopt;
  return turn;
}

sdk::Response noTurn(const sdk::Request& r) {
  return openAiError({.status = 404,
                      .message = "No turn with id '" +
                                 std::string(r.param("turn_id").value_or("")) +
                                 "' in this session.",
                      .code = "not_found"});
}

// A page of what @p add makes of each turn of the session the path names
// (oldest first), or the 404 of a session the caller may not see.
using AddTurnEntries = void (*)(PageItems& items, const Turn& turn, const SessionInfo& session);
sdk::Response sessionTurnsPage(const Ctx& ctx, const sdk::Request& r, AddTurnEntries add) {
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  PageItems items;
  for (const auto& turn_id : session->turn_ids)
    if (auto t = ctx->runtime->turn(turn_id)) add(items, *t, *session);
  return pageResponse(r, std::move(items));
}

sdk::Response listTurns(const Ctx& ctx, const sdk::Request& r) {
  return sessionTurnsPage(ctx, r, [](PageItems& items, const Turn& t, const SessionInfo& session) {
    items.emplace_back(t.id, turnJson(t, session.agent));
  });
}

sdk::Response getTurn(const Ctx& ctx, const sdk::Request& r) {
  auto turn = turnOf(ctx, r);
  if (!turn) return noTurn(r);
  auto session = ctx->runtime->session(turn->session_id);
  return sdk::Response::json(turnJson(*turn, session ? session->agent : ""));
}

PageItems itemsOf(const Turn& turn) {
  PageItems items;
  for (const auto& m : turn.input)
    if (m.role == "user") items.emplace_back(m.id, userItemJson(m, turn.id));
  for (const auto& item : turn.items) items.emplace_back(item.id, sessionItemJson(item));
  return items;
}

sdk::Response listTurnItems(const Ctx& ctx, const sdk::Request& r) {
  auto turn = turnOf(ctx, r);
  if (!turn) return noTurn(r);
  return pageResponse(r, itemsOf(*turn));
}

sdk::Response listSessionItems(const Ctx& ctx, const sdk::Request& r) {
  return sessionTurnsPage(ctx, r, [](PageItems& items, const Turn& t, const SessionInfo&) {
    for (auto& entry : itemsOf(t)) items.push_back(std::move(entry));
  });
}

}  // namespace

sdk::Status addSessionsRoutes(sdk::RouteRegistry& registry, Ctx context) {
  return sdk::addSharedRoutes(registry, "agents", std::move(context),
                              {
                                  {"POST",
                                   "/v1/agents/sessions",
                                   "agent_sessions_create",
                                   "Create a session (optionally with input, optionally streamed)",
                                   {"agents:run"},
                                   nullptr,
                                   &createSession},
                                  {"GET",
                                   "/v1/agents/sessions",
                                   "agent_sessions_list",
                                   "List sessions",
                                   {"agents:run"},
                                   &listSessions},
                                  {"GET",
                                   "/v1/agents/sessions/{id}",
                                   "agent_sessions_get",
                                   "A session",
                                   {"agents:run"},
                                   &getSession},
                                  {"POST",
                                   "/v1/agents/sessions/{id}",
                                   "agent_sessions_update",
                                   "Update a session's metadata and agent settings",
                                   {"agents:run"},
                                   &updateSession},
                                  {"DELETE",
                                   "/v1/agents/sessions/{id}",
                                   "agent_sessions_delete",
                                   "Delete a session",
                                   {"agents:run"},
                                   &deleteSession},
                                  {"POST",
                                   "/v1/agents/sessions/{id}/events",
                                   "agent_sessions_events_post",
                                   "Send input or a cancel to a session",
                                   {"agents:run"},
                                   &postEvents},
                                  {"GET",
                                   "/v1/agents/sessions/{id}/events",
                                   "agent_sessions_events_stream",
                                   "Live tail of a session's events (SSE)",
                                   {"agents:run"},
                                   nullptr,
                                   &streamEvents},
                                  {"GET",
                                   "/v1/agents/sessions/{id}/turns",
                                   "agent_sessions_turns_list",
                                   "A session's turns",
                                   {"agents:run"},
                                   &listTurns},
                                  {"GET",
                                   "/v1/agents/sessions/{id}/turns/{turn_id}",
                                   "agent_sessions_turn_get",
                                   "A turn",
                                   {"agents:run"},
                                   &getTurn},
                                  {"GET",
                                   "/v1/agents/sessions/{id}/turns/{turn_id}/items",
                                   "agent_sessions_turn_items",
                                   "A turn's items",
                                   {"agents:run"},
                                   &listTurnItems},
                                  {"GET",
                                   "/v1/agents/sessions/{id}/items",
                                   "agent_sessions_items",
                                   "A session's items",
                                   {"agents:run"},
                                   &listSessionItems},
                              });
}

}  // namespace abx::plugins::agents
