#include "ws_auth.h"

namespace abx::plugins::terminal {
namespace {

bool presentsCredentials(const Handshake& h) {
  for (const auto& [name, value] : h.headers)
    if (name == "x-access-token" || name == "authorization") return true;
  return false;
}

HandshakeVerdict verdictOf(sdk::Admission admission, std::string caller) {
  HandshakeVerdict v;
  v.allowed = admission.allowed;
  v.status = admission.status;
  v.body = std::move(admission.body);
  v.headers = std::move(admission.headers);
  v.caller = admission.allowed ? std::move(caller) : std::string();
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
  auto ticketVouches = [&] {
    return h.ticket && h.session_id && tickets.consume(*h.ticket, *h.session_id);
  };
  auto byTicket = [&] {
    request.identity = sdk::Identity{"ticket", {"*"}};
    return verdictOf(host.admit(request), "ticket");
  };

  if (!presentsCredentials(h) && ticketVouches()) return byTicket();
  auto admission = host.admit(request);
  // A token that is wrong or lacks the scope still leaves the ticket.
  bool ticket_may_help =
      admission.status == 401 ||
      (admission.status == 403 && admission.body.find("\"missing_scope\"") != std::string::npos);
  if (!admission.allowed && ticket_may_help && presentsCredentials(h) && ticketVouches())
    return byTicket();
  std::string caller = admission.identity.id;
  return verdictOf(std::move(admission), std::move(caller));
}

}  // namespace abx::plugins::terminal
