#include "pty_routes.h"

#include "abx/sdk/json.h"
#include "abx/sdk/policy_limits.h"
#include "session_request.h"
#include "terminal_owner.h"
#include "ws_url.h"

namespace abx::plugins::terminal {
namespace {

sdk::Response fail(const RequestError& e) {
  return sdk::Response::error(e.status, e.message, e.type, e.code);
}

sdk::Response notFound(std::string_view id) {
  return sdk::Response::error(404, "PTY session not found: " + std::string(id), "ValueError");
}

std::string hostFor(const TerminalContext& context, const sdk::Request& request) {
  return urlHost(request.header("host"), context.host->info().host);
}

/**
 * The session named by the {id} segment, after reaping dead ones; null
 * when unknown or another identity's (terminal_owner.h).
 */
std::shared_ptr<Session> lookup(const TerminalContext& context, const sdk::Request& request) {
  closeSessions(context, context.sessions->reapDead());
  auto id = request.param("id");
  if (!id) return nullptr;
  auto session = context.sessions->find(std::string(*id));
  if (!session || !mayActOn(request.identity, session->owner())) return nullptr;
  return session;
}

}  // namespace

void closeSessions(const TerminalContext& context,
                   const std::vector<std::shared_ptr<Session>>& sessions) {
  for (const auto& session : sessions) {
    context.tickets->revoke(session->id());
    session->process().terminate(context.kill_grace);
  }
}

bool mayConnect(const sdk::HostContext& host, const sdk::Identity& identity) {
  auto policy = host.endpointPolicy("pty_connect");
  if (!policy) return false;
  for (const auto& scope : policy->scopes)
    if (!identity.hasScope(scope)) return false;
  return true;
}

sdk::Response createSession(const TerminalContext& context, const sdk::Request& request) {
  auto parsed = parseSessionRequest(request.json);
  if (auto* e = std::get_if<RequestError>(&parsed)) return fail(*e);
  const SessionRequest& body = std::get<SessionRequest>(parsed);

  std::vector<std::shared_ptr<Session>> reaped;
  auto slot = context.sessions->reserve(&reaped);
  closeSessions(context, reaped);
  if (!slot) return sdk::Response::error(429, slot.status().message(), slot.status().type());

  SpawnContext spawn;
  spawn.paths = &context.host->paths();
  spawn.environment = &context.host->environment();
  spawn.params = request.policy ? &request.policy->params : nullptr;
  spawn.base_dir = context.host->info().base_dir;
  auto options = buildSpawnOptions(body, spawn);
  if (auto* e = std::get_if<RequestError>(&options)) return fail(*e);

  auto process = PtyProcess::spawn(std::move(std::get<sdk::SpawnOptions>(options)));
  if (!process) {
    const auto& s = process.status();
    if (s.type() == "FileNotFoundError") return sdk::Response::error(400, s.message(), s.type());
    return sdk::Response::error(500, s.message(), "OSError");
  }
  auto session = context.sessions->commit(std::move(*slot), std::move(*process), body.cols,
                                          body.rows, request.identity.id);
  if (auto lifetime = sdk::policyMaxDuration(request.policy)) session->limitLifetime(*lifetime);
  if (context.session_opened) context.session_opened();

  // A ticket only for a caller who could open the WebSocket with headers
  // anyway: pty_create's scopes must not stand in for pty_connect's.
  std::string ticket;
  if (mayConnect(*context.host, request.identity))
    ticket = context.tickets->issue(session->id(), request.identity.id);
  const std::string url =
      wsUrl(hostFor(context, request), context.ws_port(), session->id(), ticket);
  sdk::JsonWriter out;
  out.beginObject()
      .member("session_id", session->id())
      .member("ws_url", url)
      .member("pid", session->process().pid());
  return sdk::Response::json(out.endObject().take());
}

sdk::Response listSessions(const TerminalContext& context, const sdk::Request& request) {
  std::vector<std::shared_ptr<Session>> reaped;
  auto sessions = context.sessions->list(&reaped);
  closeSessions(context, reaped);
  sdk::JsonWriter out;
  out.beginObject().key("sessions").beginArray();
  for (const auto& session : sessions)
    if (mayActOn(request.identity, session->owner())) out.raw(sessionJson(session->info()));
  return sdk::Response::json(out.endArray().endObject().take());
}

sdk::Response getSession(const TerminalContext& context, const sdk::Request& request) {
  auto session = lookup(context, request);
  if (!session) return notFound(request.param("id").value_or(""));
  return sdk::Response::json(sessionJson(session->info()));
}

sdk::Response resizeSession(const TerminalContext& context, const sdk::Request& request) {
  auto session = lookup(context, request);
  if (!session) return notFound(request.param("id").value_or(""));
  auto size = parseSize(request.json);
  if (auto* e = std::get_if<RequestError>(&size)) return fail(*e);
  const auto [cols, rows] = std::get<std::pair<int, int>>(size);
  if (auto s = session->resize(cols, rows); !s)
    return sdk::Response::error(500, s.message(), "OSError");
  sdk::JsonWriter out;
  out.beginObject()
      .member("status", "resized")
      .member("session_id", session->id())
      .member("cols", cols)
      .member("rows", rows);
  return sdk::Response::json(out.endObject().take());
}

sdk::Response deleteSession(const TerminalContext& context, const sdk::Request& request) {
  auto id = request.param("id");
  if (!id || id->empty()) return sdk::Response::error(400, "Missing session id", "ValueError");
  if (!lookup(context, request)) return notFound(*id);
  auto session = context.sessions->remove(std::string(*id));
  if (!session) return notFound(*id);
  closeSessions(context, {session});
  sdk::JsonWriter out;
  out.beginObject().member("status", "closed").member("session_id", session->id());
  return sdk::Response::json(out.endObject().take());
}

sdk::Response connectHint(const TerminalContext& context, const sdk::Request& request) {
  return sdk::Response::error(400,
                              "connect with a WebSocket to ws://" + hostFor(context, request) +
                                  ":" + std::to_string(context.ws_port()) + "/pty?session_id=…",
                              "ValueError");
}

}  // namespace abx::plugins::terminal
