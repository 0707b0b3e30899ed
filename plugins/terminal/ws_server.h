// WsService: the PTY WebSocket port (ABX_PTY_PORT / --pty-port, default
// 9001; 0 picks a free port), which serves only `GET /pty` upgrades. One
// loop thread (ws_bridge.h) accepts its connections, reads each handshake
// without a thread of its own, has it judged here — authorized before the
// upgrade (ws_auth.h), then the session looked up — and serves every
// attached terminal.
#pragma once

#include <atomic>
#include <string>

#include "abx/sdk/host_context.h"
#include "session_table.h"
#include "tickets.h"
#include "ws_bridge.h"

namespace abx::plugins::terminal {

struct WsServiceContext {
  sdk::HostContext* host = nullptr;
  sdk::Logger* log = nullptr;
  SessionTable* sessions = nullptr;
  TicketStore* tickets = nullptr;
  BridgeOptions bridge;
};

/** THREAD: start/stop from one thread (the plugin's lifecycle); the rest is safe. */
class WsService {
 public:
  explicit WsService(WsServiceContext context);
  ~WsService();
  WsService(const WsService&) = delete;
  WsService& operator=(const WsService&) = delete;

  /** Binds @p host:@p port (0: any free port) and serves. @return the bound port. */
  sdk::Result<int> start(const std::string& host, int port);
  /**
   * Stops accepting, ends every connection (close 1001, or cut off for a
   * client that does not answer) and waits for the loop thread.
   */
  void stop() noexcept;
  bool running() const { return running_.load(); }
  /** The bound port while running; the last one bound after a stop; 0 before. */
  int port() const { return port_.load(); }

  /** The answer to one complete upgrade request (on the loop thread; does not block). */
  HandshakeDecision judge(const sdk::RequestHead& head, const std::string& local_address);

 private:
  WsServiceContext context_;
  BridgeLoop bridge_;
  std::atomic<bool> running_{false};
  std::atomic<int> port_{0};
};

}  // namespace abx::plugins::terminal
