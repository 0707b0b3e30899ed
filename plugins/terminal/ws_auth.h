// Who may open the PTY WebSocket. The handshake is admitted by the kernel
// exactly like an HTTP request to pty_connect (HostContext::admit): Host and
// Origin, the caller, enabled, scopes, rate and concurrency, and an audit
// record. The caller is who the token headers (X-Access-Token /
// Authorization: Bearer) say — or, for browsers, which cannot set headers
// on a WebSocket, whoever a ticket from POST /pty/sessions vouches for
// (60 s, single use, that one session), as the identity it was issued to.
// Headers, when valid, win and leave the ticket unspent. An open server (no
// token configured) admits everyone as anonymous. The verdict names the
// caller and whether it holds `admin`, for the owner check
// (terminal_owner.h) where the session is looked up.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/host_context.h"
#include "tickets.h"

namespace abx::plugins::terminal {

struct HandshakeVerdict {
  bool allowed = false;
  int status = 401;                                         /**< when refused */
  std::string body;                                         /**< JSON error body when refused */
  std::vector<std::pair<std::string, std::string>> headers; /**< Retry-After */
  std::string caller; /**< identity id (for a ticket: the identity it was issued to) */
  bool admin = false; /**< the caller holds `admin` (never through a ticket) */
  /** pty_connect's concurrency slot: held while the connection lives. */
  std::shared_ptr<void> lease;
};

struct Handshake {
  std::vector<std::pair<std::string, std::string>> headers; /**< lower-case names */
  std::optional<std::string_view> session_id;
  std::optional<std::string_view> ticket;
  std::string local_address; /**< the address the connection arrived on */
};

HandshakeVerdict authorizeHandshake(sdk::HostContext& host, TicketStore& tickets,
                                    const Handshake& handshake);

}  // namespace abx::plugins::terminal
