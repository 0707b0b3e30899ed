// Who may open the PTY WebSocket. The handshake is judged before the
// upgrade, with the same rules as an HTTP request to pty_connect:
//   1. pty_connect must be enabled (else 404 endpoint_disabled);
//   2. the token headers (X-Access-Token / Authorization: Bearer), through
//      HostContext::authenticate, with every scope pty_connect requires — or,
//   3. a ticket from POST /pty/sessions for this session (60 s, single use).
// An open server (no token configured) authenticates everyone as anonymous
// with "*", so no ticket is needed. Otherwise 401 (403 for a known caller
// lacking a scope, 400 for ambiguous credentials). The verdict names the
// caller and whether it holds `admin`, for the owner check (terminal_owner.h) where
// the session is looked up.
#pragma once

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
  int status = 401;   /**< when refused */
  std::string body;   /**< JSON error body when refused */
  std::string caller; /**< identity id (for a ticket: the identity it was issued to) */
  bool admin = false; /**< the caller holds `admin` (never through a ticket) */
};

HandshakeVerdict authorizeHandshake(const sdk::HostContext& host, TicketStore& tickets,
                                    const std::vector<std::pair<std::string, std::string>>& headers,
                                    std::optional<std::string_view> session_id,
                                    std::optional<std::string_view> ticket);

}  // namespace abx::plugins::terminal
