#include "ws_auth.h"

#include "abx/sdk/json.h"
#include "terminal_owner.h"

namespace abx::plugins::terminal {
namespace {

constexpr std::string_view kEndpoint = "pty_connect";

HandshakeVerdict refuse(int status, std::string body) {
  HandshakeVerdict v;
  v.status = status;
  v.body = std::move(body);
  return v;
}

HandshakeVerdict allow(std::string caller, bool admin) {
  HandshakeVerdict v;
  v.allowed = true;
  v.status = 101;
  v.caller = std::move(caller);
  v.admin = admin;
  return v;
}

}  // namespace

HandshakeVerdict authorizeHandshake(const sdk::HostContext& host, TicketStore& tickets,
                                    const std::vector<std::pair<std::string, std::string>>& headers,
                                    std::optional<std::string_view> session_id,
                                    std::optional<std::string_view> ticket) {
  auto policy = host.endpointPolicy(kEndpoint);
  if (!policy || !policy->enabled)
    return refuse(404, R"({"error":"Endpoint 'pty_connect' is disabled","type":"PolicyError",)"
                       R"("code":"endpoint_disabled","endpoint":"pty_connect","rule":)" +
                           sdk::jsonQuote(policy ? policy->rule : "") + "}");

  std::optional<std::string> missing_scope;
  auto who = host.authenticate(headers);
  if (who) {
    for (const auto& scope : policy->scopes) {
      if (!who->hasScope(scope)) {
        missing_scope = scope;
        break;
      }
    }
    if (!missing_scope) return allow(who->id, who->hasScope(kAdminScope));
  } else if (who.status().message().starts_with("ambiguous")) {
    return refuse(400, "{\"error\":" + sdk::jsonQuote(who.status().message()) +
                           R"(,"type":"AuthError","code":"ambiguous_credentials"})");
  }

  // A ticket vouches for its one session only: never for admin's reach.
  if (ticket && session_id)
    if (auto issued_to = tickets.consume(*ticket, *session_id))
      return allow(std::move(*issued_to), false);

  if (missing_scope)
    return refuse(403, "{\"error\":" +
                           sdk::jsonQuote("Missing scope '" + *missing_scope +
                                          "' for endpoint 'pty_connect'") +
                           R"(,"type":"PermissionError","code":"missing_scope",)"
                           R"("endpoint":"pty_connect","scope":)" +
                           sdk::jsonQuote(*missing_scope) + "}");
  return refuse(401, R"({"error":"unauthorized","type":"AuthError"})");
}

}  // namespace abx::plugins::terminal
