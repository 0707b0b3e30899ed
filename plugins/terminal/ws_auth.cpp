#include "ws_auth.h"

#include "terminal_owner.h"

namespace abx::plugins::terminal {
namespace {

bool presentsCredentials(const Handshake& h) {
  for (const auto& [name, value] : h.headers)
    if (name == "x-access-token" || name == "authorization") return true;
  return false;
}

HandshakeVerdict verdictOf(sdk::Admission admission, bool by_ticket) {
  HandshakeVerdict v;
  v.allowed = admission.allowed;
  v.status = admission.status;
  v.body = std::move(admission.body);
  v.headers = std::move(admission.headers);
  if (v.allowed) {
    v.caller = admission.identity.id;
    // A ticket vouches for its one session only: never for admin's reach.
    v.admin = !by_ticket && admission.identity.hasScope(kAdminScope);
  }
  v.lease = std::move(admission.lease);
  return v;
}

}  // namespace

HandshakeVerdict authorizeHandshake(sdk::HostContext& host, TicketStore& tickets,
                                    const Handshake& h) {
  sdk::AdmissionRequest request;
  request.endpoint = "pty_connect";
  request.path = "/pty";
  request.headers = h.headers;
  request.local_address = h.local_address;
  auto issuedTo = [&]() -> std::optional<std::string> {
    if (!h.ticket || !h.session_id) return std::nullopt;
    return tickets.consume(*h.ticket, *h.session_id);
  };
  // The ticket stands in for the creator's token: its scopes were checked
  // when the session was made.
  auto byTicket = [&](std::string identity) {
    request.identity = sdk::Identity{std::move(identity), {"*"}};
    return verdictOf(host.admit(request), true);
  };

  if (!presentsCredentials(h))
    if (auto identity = issuedTo()) return byTicket(std::move(*identity));
  auto admission = host.admit(request);
  // A token that is wrong or lacks the scope still leaves the ticket.
  bool ticket_may_help =
      admission.status == 401 ||
      (admission.status == 403 && admission.body.find("\"missing_scope\"") != std::string::npos);
  if (!admission.allowed && ticket_may_help && presentsCredentials(h))
    if (auto identity = issuedTo()) return byTicket(std::move(*identity));
  return verdictOf(std::move(admission), false);
}

}  // namespace abx::plugins::terminal
