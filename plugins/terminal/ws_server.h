// WsService: the PTY WebSocket port (ABX_PTY_PORT / --pty-port, default
// 9001; 0 picks a free port) — a POCO HTTPServer of the plugin's own that
// serves only `GET /pty` upgrades. Each handshake is authorized before the
// upgrade (ws_auth.h) on one of a few handshake threads, then the upgraded
// connection is handed to the bridge thread (ws_bridge.h), which serves
// every attached terminal.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "abx/sdk/host_context.h"
#include "session_table.h"
#include "tickets.h"
#include "ws_bridge.h"

namespace Poco {
class ThreadPool;
namespace Net {
class HTTPServer;
class HTTPServerRequest;
class HTTPServerResponse;
}  // namespace Net
}  // namespace Poco

namespace abx::plugins::terminal {

struct WsServiceContext {
  sdk::HostContext* host = nullptr;
  sdk::Logger* log = nullptr;
  SessionTable* sessions = nullptr;
  TicketStore* tickets = nullptr;
  BridgeOptions bridge;
  /** Handshakes served at once (the rest queue); attached terminals hold none. */
  std::size_t handshake_threads = 8;
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
   * Stops accepting, ends every connection (close 1001, or a socket shutdown
   * for a client that does not answer) and waits for the threads.
   */
  void stop() noexcept;
  bool running() const { return running_.load(); }
  /** The bound port while running; the last one bound after a stop; 0 before. */
  int port() const { return port_.load(); }

  /** One request on the port (called on a service thread). */
  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

 private:
  void enter();
  void leave();
  void track(int fd);
  void untrack(int fd);

  WsServiceContext context_;
  BridgeLoop bridge_;
  std::unique_ptr<Poco::ThreadPool> pool_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> running_{false};
  std::atomic<int> port_{0};

  std::mutex active_mutex_;
  std::condition_variable active_cv_;
  std::size_t active_ = 0;
  std::set<int> sockets_;  // upgraded connections, for a forced shutdown
};

}  // namespace abx::plugins::terminal
