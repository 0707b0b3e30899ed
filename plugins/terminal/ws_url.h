// The ws_url POST /pty/sessions returns: the host the client used to reach
// the HTTP server (its Host header), the PTY port actually bound, the
// session and, when issued, a ticket.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::terminal {

/**
 * The host part for the URL: the Host header without its port when it is a
 * plain name or address, else the bind address (0.0.0.0 and :: become
 * localhost). IPv6 addresses come bracketed.
 */
std::string urlHost(std::optional<std::string_view> host_header, std::string_view bind_host);

/** ws://<host>:<port>/pty?session_id=<id>[&ticket=<ticket>] */
std::string wsUrl(std::string_view host, int port, std::string_view session_id,
                  std::string_view ticket = {});

}  // namespace abx::plugins::terminal
