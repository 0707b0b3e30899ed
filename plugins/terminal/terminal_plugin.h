// The abx.terminal plugin: owns the `terminal` group (on by default), the
// REST routes of PTY sessions (spec §4.5), GET /pty (so the policy engine
// knows pty_connect), and the WebSocket service on the PTY port (spec §5),
// which runs exactly while the policy enables pty_connect.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "pty_routes.h"
#include "session_table.h"
#include "tickets.h"
#include "ws_server.h"

namespace abx::plugins::terminal {

/** The manifest's `settings:` for this plugin (see docs/terminal.md). */
struct TerminalSettings {
  std::size_t max_sessions = 10;
  std::chrono::seconds idle_timeout{1800};
};

/** Reads max_sessions / idle_timeout_seconds; a value below 1 is an error. */
sdk::Result<TerminalSettings> readSettings(const sdk::Settings& settings);

class TerminalPlugin final : public sdk::Plugin {
 public:
  explicit TerminalPlugin(sdk::HostContext& host) : host_(host) {}
  ~TerminalPlugin() override;

  /** Reads the settings, declares the group, adds the six routes. */
  sdk::Status start(sdk::HostContext& host) override;
  /** Starts or stops the WebSocket service as pty_connect is enabled or not. */
  void policyApplied() noexcept override;
  /** Stops the service and the sweeper; ends every session. */
  void stop() noexcept override;

  /** The port ws_url names: the bound one, else the configured one. */
  int wsPort() const;

 private:
  /** Starts the idle sweeper with the first session (no thread while there is none). */
  void startSweeper();
  void sweepLoop();

  sdk::HostContext& host_;
  std::unique_ptr<SessionTable> sessions_;
  TicketStore tickets_;
  std::unique_ptr<WsService> ws_;
  TerminalContext context_;

  std::mutex sweep_mutex_;
  std::condition_variable sweep_cv_;
  bool sweep_stop_ = false;
  std::chrono::milliseconds sweep_interval_{5000};
  std::thread sweeper_;  // guarded by sweep_mutex_
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeTerminalPlugin(sdk::HostContext& host);

/** The JSON Schema of the manifest's settings block. */
inline constexpr const char* kSettingsSchema =
    R"({"type":"object","additionalProperties":false,"properties":{)"
    R"("max_sessions":{"type":"integer"},"idle_timeout_seconds":{"type":"integer"}}})";

}  // namespace abx::plugins::terminal
