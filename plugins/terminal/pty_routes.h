// The REST half of the terminal group (spec §4.5): create, list, get,
// resize and delete PTY sessions, and GET /pty, which only tells an HTTP
// client where the WebSocket is.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "abx/sdk/host_context.h"
#include "abx/sdk/http.h"
#include "session_table.h"
#include "tickets.h"

namespace abx::plugins::terminal {

/** What the handlers share. LIFETIME: the plugin's. */
struct TerminalContext {
  sdk::HostContext* host = nullptr;
  SessionTable* sessions = nullptr;
  TicketStore* tickets = nullptr;
  /** The PTY port to put into URLs (the bound one when the service runs). */
  std::function<int()> ws_port;
  /** Called after a session is added (the plugin starts its idle sweeper). */
  std::function<void()> session_opened;
  /** DELETE: time between SIGHUP and SIGKILL. */
  std::chrono::milliseconds kill_grace{500};
};

/** Ends sessions removed from the table: kill ladder, tickets revoked. */
void closeSessions(const TerminalContext& context,
                   const std::vector<std::shared_ptr<Session>>& sessions);

/** True when @p identity holds every scope pty_connect requires now. */
bool mayConnect(const sdk::HostContext& host, const sdk::Identity& identity);

sdk::Response createSession(const TerminalContext& context, const sdk::Request& request);
sdk::Response listSessions(const TerminalContext& context, const sdk::Request& request);
sdk::Response getSession(const TerminalContext& context, const sdk::Request& request);
sdk::Response resizeSession(const TerminalContext& context, const sdk::Request& request);
sdk::Response deleteSession(const TerminalContext& context, const sdk::Request& request);
/** GET /pty on the HTTP port: 400 naming the WebSocket URL. */
sdk::Response connectHint(const TerminalContext& context, const sdk::Request& request);

}  // namespace abx::plugins::terminal
