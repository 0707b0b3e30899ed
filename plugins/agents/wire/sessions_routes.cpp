#include "sessions_routes.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>

#include "definition_lock.h"
#include "json_text.h"
#include "openai_error.h"
#include "ownership.h"
#include "runtime/id_factory.h"
#include "session_feed.h"
#include "session_objects.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;
using Ctx = std::shared_ptr<const SessionsContext>;
sdk::Response noSession(const std::string& id) {
  return openAiError({404, "No session with id '" + id + "' found.", "not_found", ""});
}

Object::Ptr parseBody(const std::string& body, std::optional<WireError>& error) {
  if (body.empty()) return new Object;
  try {
    Poco::JSON::Parser parser;
    auto parsed = parser.parse(body);
    if (parsed.type() == typeid(Object::Ptr)) return parsed.extract<Object::Ptr>();
  } catch (...) {
  }
  error = WireError{400, "The request body must be a JSON object.", "invalid_request", ""};
  return nullptr;
}

// The user's text of an input (a string or a list of messages); images and
// files are refused like on the Responses wire.
std::optional<WireError> inputMessages(const Poco::Dynamic::Var& input,
                                       std::vector<InputMessage>& out) {
  if (input.isString()) {
    out.push_back({randomId("msg"), "user", input.extract<std::string>()});
    return std::nullopt;
  }
  if (input.type() != typeid(Array::Ptr))
    return WireError{400, "'input' must be a string or a list of messages.", "invalid_request",
                     "input"};
  auto list = input.extract<Array::Ptr>();
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto message = list->getObject(static_cast<unsigned>(i));
    if (!message)
      return WireError{400, "Each input must be a message.", "invalid_request", "input"};
    InputMessage m{randomId("msg"), "user", ""};
    auto content = message->get("content");
    if (content.isString()) {
      m.text = content.extract<std::string>();
    } else if (content.type() == typeid(Array::Ptr)) {
      auto parts = content.extract<Array::Ptr>();
      for (std::size_t j = 0; j < parts->size(); ++j) {
        auto part = parts->getObject(static_cast<unsigned>(j));
        auto type = part ? part->optValue<std::string>("type", "") : "";
        if (type != "input_text")
          return WireError{400, "Content parts of type '" + type + "' are not supported.",
                           "unsupported_parameter", "input"};
        if (!m.text.empty()) m.text += "\n";
        m.text += part->optValue<std::string>("text", "");
      }
    }
    out.push_back(std::move(m));
  }
  if (out.empty()) return WireError{400, "'input' holds no message.", "invalid_request", "input"};
  return std::nullopt;
}

std::string promptOf(const std::vector<InputMessage>& messages) {
  std::string prompt;
  for (const auto& m : messages) prompt += (prompt.empty() ? "" : "\n\n") + m.text;
  return prompt;
}

// Queues a turn of @p messages with the session's vault credentials: secret
// env and MCP bearer tokens (redacted like the definition's own secrets).
sdk::Result<Turn> submit(const Ctx& ctx, const std::string& session_id,
                         std::vector<InputMessage> messages) {
  TurnRequest turn;
  turn.prompt = promptOf(messages);
  turn.input = std::move(messages);
  const auto vault_ids = ctx->vault_ids->get(session_id);
  turn.secret_env = ctx->vaults->secretEnv(vault_ids);
  turn.mcp_bearer_tokens = ctx->vaults->mcpBearerTokens(vault_ids);
  return ctx->runtime->submitTurn(session_id, std::move(turn));
}

std::shared_ptr<SessionStream> streamFor(const Ctx& ctx, const std::string& session_id) {
  auto* runtime = ctx->runtime;
  auto* vault_ids = ctx->vault_ids;
  return ctx->streams->open(
      session_id, [runtime, session_id] { return runtime->session(session_id); },
      [vault_ids, session_id] { return vault_ids->get(session_id); });
}

std::optional<std::uint64_t> resumeFrom(const sdk::Request& r) {
  auto text = r.header("last-event-id");
  if (!text) text = r.queryParam("after");
  if (!text) return std::nullopt;
  try {
    std::string digits(*text);
    if (digits.starts_with("evt_")) digits = digits.substr(4);
    return static_cast<std::uint64_t>(std::stoull(digits));
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<sdk::Response> createSession(const Ctx& ctx, const sdk::Request& r,
                                           sdk::SseStream& sse) {
  std::optional<WireError> error;
  auto body = parseBody(r.body, error);
  if (!body) return openAiError(*error);
  std::string model = body->optValue<std::string>("agent_id", "");
  std::string model_param = "agent_id";
  if (auto agent = body->getObject("agent"); agent && model.empty()) {
    model = agent->optValue<std::string>("model", "");
    model_param = "agent.model";
  }
  if (model.empty())
    return openAiError({400, "Give agent_id or agent.model.", "invalid_request", "agent_id"});
  const auto asked_vaults = body->getArray("vault_ids");
  if (auto locked = definitionLockRefusal(
          *ctx->catalog, {model, model_param, false, asked_vaults && asked_vaults->size() > 0}))
    return openAiError(*locked);
  std::string why;
  if (!ctx->catalog->resolve(model, why))
    return openAiError({404, why, "model_not_found", "agent_id"});
  std::vector<InputMessage> input;
  if (body->has("input") && !body->isNull("input"))
    if (auto e = inputMessages(body->get("input"), input)) return openAiError(*e);
  const bool stream = body->optValue<bool>("stream", false);
  if (stream && input.empty())
    return openAiError({400, "A streamed session needs an 'input'.", "invalid_request", "input"});
  std::map<std::string, std::string> metadata;
  if (auto meta = body->getObject("metadata"))
    for (const auto& k : meta->getNames()) metadata[k] = meta->optValue<std::string>(k, "");
  std::vector<std::string> vault_ids;
  if (auto ids = body->getArray("vault_ids"))
    for (std::size_t i = 0; i < ids->size(); ++i) {
      auto vault = ids->getElement<std::string>(static_cast<unsigned>(i));
      if (!visibleVault(*ctx->vaults, vault, r.identity))
        return openAiError(
            {404, "No vault with id '" + vault + "' found.", "not_found", "vault_ids"});
      vault_ids.push_back(vault);
    }
  auto created = ctx->runtime->createSession(model, metadata, r.identity.id);
  if (!created)
    return openAiError({404, created.status().message(), "model_not_found", "agent_id"});
  ctx->vault_ids->set(created->id, vault_ids);
  auto session_stream = streamFor(ctx, created->id);
  session_stream->created(*created);
  const auto start = session_stream->lastSeq() - 1;
  if (!input.empty()) {
    auto submitted = submit(ctx, created->id, input);
    if (!submitted) return openAiError({500, submitted.status().message(), "internal_error", ""});
  }
  if (stream) {
    sse.begin();
    followSession(session_stream, sse, start, /*until_idle=*/true, /*subscribed=*/false);
    return std::nullopt;
  }
  auto now = ctx->runtime->session(created->id);
  if (now && !input.empty()) now->status = SessionStatus::in_progress;
  return sdk::Response::json(sessionJson(now.value_or(*created), vault_ids));
}

sdk::Response getSession(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto s = visibleSession(*ctx->runtime, id, r.identity);
  if (!s) return noSession(id);
  return sdk::Response::json(sessionJson(*s, ctx->vault_ids->get(id)));
}

sdk::Response updateSession(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  if (!visibleSession(*ctx->runtime, id, r.identity)) return noSession(id);
  std::optional<WireError> error;
  auto body = parseBody(r.body, error);
  if (!body) return openAiError(*error);
  std::map<std::string, std::string> metadata;
  if (auto meta = body->getObject("metadata")) {
    for (const auto& k : meta->getNames()) metadata[k] = meta->optValue<std::string>(k, "");
    if (!ctx->runtime->setMetadata(id, metadata)) return noSession(id);
  }
  return getSession(ctx, r);
}

sdk::Response deleteSession(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  // The runtime tells the listener, which ends the session's stream
  // (agent.session.failed to its subscribers) and forgets its keys and vaults.
  if (!visibleSession(*ctx->runtime, id, r.identity) || !ctx->runtime->deleteSession(id))
    return noSession(id);
  return sdk::Response::json(JsonText()
                                 .str("id", id)
                                 .str("object", "agent.session.deleted")
                                 .boolean("deleted", true)
                                 .done());
}

sdk::Response listSessions(const Ctx& ctx, const sdk::Request& r) {
  auto sessions = ctx->runtime->sessions();
  std::sort(sessions.begin(), sessions.end(), [](const SessionInfo& a, const SessionInfo& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
  });
  const auto agent = r.queryParam("agent_id");
  PageItems items;
  for (const auto& s : sessions)
    if ((!agent || s.agent == *agent) && mayActOn(r.identity, s.owner))
      items.emplace_back(s.id, sessionJson(s, ctx->vault_ids->get(s.id)));
  return pageResponse(r, std::move(items));
}

sdk::Response postEvents(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  std::optional<WireError> error;
  auto body = parseBody(r.body, error);
  if (!body) return openAiError(*error);
  auto events = body->getArray("events");
  if (!events || events->size() == 0)
    return openAiError({400, "'events' must be a non-empty list.", "invalid_request", "events"});
  if (auto key = r.header("idempotency-key"); key && !key->empty())
    if (!ctx->keys->firstUse(id, callerKey(r.identity, *key), unixNow()))
      return sdk::Response::json("", 202);
  streamFor(ctx, id);
  for (std::size_t i = 0; i < events->size(); ++i) {
    auto event = events->getObject(static_cast<unsigned>(i));
    const auto type = event ? event->optValue<std::string>("type", "") : "";
    if (type == "agent.session.input.message") {
      std::vector<InputMessage> input;
      if (!event->has("input"))
        return openAiError({400, "An input message needs 'input'.", "invalid_request", "input"});
      if (auto e = inputMessages(event->get("input"), input)) return openAiError(*e);
      auto submitted = submit(ctx, id, std::move(input));
      if (!submitted) return openAiError({500, submitted.status().message(), "internal_error", ""});
    } else if (type == "agent.session.input.cancel") {
      for (const auto& turn_id : ctx->runtime->session(id).value_or(*session).turn_ids)
        if (auto t = ctx->runtime->turn(turn_id); t && !isTerminal(t->status))
          (void)ctx->runtime->cancelTurn(turn_id);
    } else if (type == "agent.session.input.tool_result") {
      return openAiError({400,
                          "Tool results are not accepted: agent runtimes run their own tools and "
                          "never ask for a client-side function call.",
                          "unsupported_parameter", "events"});
    } else {
      return openAiError(
          {400, "Unsupported input event type '" + type + "'.", "unsupported_parameter", "events"});
    }
  }
  auto accepted = sdk::Response::json("", 202);
  accepted.content_type = "application/json";
  return accepted;
}

std::optional<sdk::Response> streamEvents(const Ctx& ctx, const sdk::Request& r,
                                          sdk::SseStream& sse) {
  const std::string id(r.param("id").value_or(""));
  if (!visibleSession(*ctx->runtime, id, r.identity)) return noSession(id);
  auto stream = streamFor(ctx, id);
  if (!stream->subscribe())
    return openAiError({429,
                        "This session already has " +
                            std::to_string(SessionStream::kMaxSubscribers) +
                            " event subscribers; close one first.",
                        "too_many_subscribers", ""});
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
  return openAiError(
      {404,
       "No turn with id '" + std::string(r.param("turn_id").value_or("")) + "' in this session.",
       "not_found", ""});
}

sdk::Response listTurns(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  PageItems items;
  for (const auto& turn_id : session->turn_ids)
    if (auto t = ctx->runtime->turn(turn_id))
      items.emplace_back(t->id, turnJson(*t, session->agent));
  return pageResponse(r, std::move(items));
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
  const std::string id(r.param("id").value_or(""));
  auto session = visibleSession(*ctx->runtime, id, r.identity);
  if (!session) return noSession(id);
  PageItems items;
  for (const auto& turn_id : session->turn_ids)
    if (auto t = ctx->runtime->turn(turn_id))
      for (auto& entry : itemsOf(*t)) items.push_back(std::move(entry));
  return pageResponse(r, std::move(items));
}

sdk::RouteSpec route(std::string method, std::string path, std::string endpoint,
                     std::string summary) {
  return agentsRoute(std::move(method), std::move(path), std::move(endpoint), std::move(summary),
                     "agents:run");
}

}  // namespace

std::vector<sdk::RouteSpec> sessionsRoutes(Ctx ctx) {
  std::vector<sdk::RouteSpec> routes;
  auto plain = [&](std::string method, std::string path, std::string endpoint, std::string summary,
                   sdk::Response (*fn)(const Ctx&, const sdk::Request&)) {
    auto spec = route(std::move(method), std::move(path), std::move(endpoint), std::move(summary));
    spec.handler = [ctx, fn](const sdk::Request& r) { return fn(ctx, r); };
    routes.push_back(std::move(spec));
  };
  {
    auto spec = route("POST", "/v1/agents/sessions", "agent_sessions_create",
                      "Create a session (optionally with input, optionally streamed)");
    spec.streaming = true;
    spec.stream_handler = [ctx](const sdk::Request& r, sdk::SseStream& s) {
      return createSession(ctx, r, s);
    };
    routes.push_back(std::move(spec));
  }
  plain("GET", "/v1/agents/sessions", "agent_sessions_list", "List sessions", &listSessions);
  plain("GET", "/v1/agents/sessions/{id}", "agent_sessions_get", "A session", &getSession);
  plain("POST", "/v1/agents/sessions/{id}", "agent_sessions_update", "Update a session's metadata",
        &updateSession);
  plain("DELETE", "/v1/agents/sessions/{id}", "agent_sessions_delete", "Delete a session",
        &deleteSession);
  plain("POST", "/v1/agents/sessions/{id}/events", "agent_sessions_events_post",
        "Send input or a cancel to a session", &postEvents);
  {
    auto spec = route("GET", "/v1/agents/sessions/{id}/events", "agent_sessions_events_stream",
                      "Live tail of a session's events (SSE)");
    spec.streaming = true;
    spec.stream_handler = [ctx](const sdk::Request& r, sdk::SseStream& s) {
      return streamEvents(ctx, r, s);
    };
    routes.push_back(std::move(spec));
  }
  plain("GET", "/v1/agents/sessions/{id}/turns", "agent_sessions_turns_list", "A session's turns",
        &listTurns);
  plain("GET", "/v1/agents/sessions/{id}/turns/{turn_id}", "agent_sessions_turn_get", "A turn",
        &getTurn);
  plain("GET", "/v1/agents/sessions/{id}/turns/{turn_id}/items", "agent_sessions_turn_items",
        "A turn's items", &listTurnItems);
  plain("GET", "/v1/agents/sessions/{id}/items", "agent_sessions_items", "A session's items",
        &listSessionItems);
  return routes;
}

}  // namespace abx::plugins::agents
