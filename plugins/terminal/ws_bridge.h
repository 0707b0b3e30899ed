// The bridge between WebSocket clients and their PTY sessions (spec §5):
// ONE thread (`abx-pty-bridge`, started with the first connection, stopped
// with the service) serves every attached terminal. It epolls each client
// socket, PTY master and shell pidfd and drives one WsLink (ws_link.h) per
// connection, so a waiting terminal holds no thread; nothing blocks on a
// slow side (input waits in a bounded buffer and the client is not read
// while it is full; output waits in a bounded queue and the shell is not
// read while the client lags).
#pragma once

#include <Poco/Net/WebSocket.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "session_table.h"

namespace abx::plugins::terminal {

struct BridgeOptions {
  /** How often the loop looks at the stop flag and attachment when idle. */
  std::chrono::milliseconds tick{200};
  /** A ping goes out after this long without any frame sent (dead peers, NAT). */
  std::chrono::seconds ping_interval{30};
  /** Input accepted but not yet written to the PTY; beyond it the client waits. */
  std::size_t max_pending_input = 256u << 10;
  /** After the shell ended: how long to keep forwarding what it left in the PTY. */
  std::chrono::milliseconds drain_quiet{100};
  std::chrono::milliseconds drain_max{2000};
  /** Output queued for a client that takes none of it for this long ends the connection. */
  std::chrono::seconds send_timeout{10};
  /** Output queued for the client; beyond it the shell is not read until the client catches up. */
  std::size_t max_pending_output = 256u << 10;
  /** After the server's close frame: how long to wait for the client's. */
  std::chrono::milliseconds close_wait{1000};
};

enum class BridgeEnd {
  exited,        /**< the shell ended: exited event sent, closed 1000 */
  client_closed, /**< the client sent a close frame */
  client_gone,   /**< the connection broke */
  replaced,      /**< another client attached to the session */
  stopping       /**< the service is stopping */
};

class WsLink;

/** THREAD: safe. */
class BridgeLoop {
 public:
  explicit BridgeLoop(BridgeOptions options = {});
  ~BridgeLoop();
  BridgeLoop(const BridgeLoop&) = delete;
  BridgeLoop& operator=(const BridgeLoop&) = delete;

  /**
   * Attaches the upgraded @p ws to @p session (a previous client is closed
   * with 1000) and serves it on the bridge thread, starting the thread if
   * needed. @return false, leaving @p ws to the caller, when the loop is
   * stopped or its thread cannot start.
   */
  bool adopt(std::unique_ptr<Poco::Net::WebSocket>& ws, const std::shared_ptr<Session>& session);
  /**
   * Closes every connection (1001, or cut off after close_wait when the
   * client does not answer), joins the thread, and refuses adopt() until
   * reopen().
   */
  void stop() noexcept;
  void reopen();
  /** Connections being served (tests, diagnostics). */
  std::size_t size() const { return size_.load(); }

 private:
  struct Entry;
  void run() noexcept;
  bool startThread();
  void serve(Entry& entry, int kind, std::uint32_t events) noexcept;
  void sync(Entry& entry) noexcept;
  void unregister(Entry& entry) noexcept;
  int waitMillis(const std::vector<std::unique_ptr<Entry>>& entries,
                 std::chrono::steady_clock::time_point next_tick) const;

  const BridgeOptions options_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<WsLink>> incoming_;
  bool closed_ = false;
  std::thread thread_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<std::size_t> size_{0};
};

/**
 * Sends a close frame with @p code and @p reason and waits up to @p wait
 * for the client's close frame (the closing handshake). Never throws.
 */
void closeWebSocket(Poco::Net::WebSocket& ws, std::uint16_t code, std::string_view reason,
                    std::chrono::milliseconds wait = std::chrono::milliseconds(1000));

}  // namespace abx::plugins::terminal
