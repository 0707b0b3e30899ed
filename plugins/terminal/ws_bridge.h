// The PTY port's loop (spec §5): ONE thread (`abx-pty-bridge`, running
// while the service listens) accepts the port's connections, reads and
// answers their WebSocket handshakes (ws_handshake.h) and bridges every
// attached terminal (ws_link.h). It epolls the listening socket, each
// client socket, PTY master and shell pidfd, so neither a waiting terminal
// nor a client that sends its handshake slowly holds a thread; nothing
// blocks on a slow side (input waits in a bounded buffer and the client is
// not read while it is full; output waits in a bounded queue and the shell
// is not read while the client lags). Handshakes whose head is still being
// read are capped (a newcomer beyond the cap drops the oldest) and each has
// one deadline for its whole head.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "session_table.h"
#include "ws_handshake.h"

namespace abx::plugins::terminal {

struct BridgeOptions {
  /** How often the loop looks at the stop flag and attachment while it serves anyone. */
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
  /** After the server's close frame (or a refusal): how long to wait for the client. */
  std::chrono::milliseconds close_wait{1000};
  /** From accept until the request head is complete; a client still sending it is cut off. */
  std::chrono::milliseconds handshake_timeout{10000};
  /** Handshakes whose head is being read at once; a newcomer beyond it drops the oldest. */
  std::size_t max_handshakes = 64;
};

enum class BridgeEnd {
  exited,        /**< the shell ended: exited event sent, closed 1000 */
  client_closed, /**< the client sent a close frame */
  client_gone,   /**< the connection broke */
  replaced,      /**< another client attached to the session */
  stopping       /**< the service is stopping */
};

/**
 * Decides one complete upgrade request on the loop thread, so it must not
 * block. @p local_address: the address the connection arrived on.
 */
using HandshakeJudge = std::function<HandshakeDecision(const sdk::RequestHead& head,
                                                       const std::string& local_address)>;

class WsLink;

/** THREAD: start/stop from one thread; size() and handshakes() from any. */
class BridgeLoop {
 public:
  BridgeLoop(BridgeOptions options, HandshakeJudge judge);
  ~BridgeLoop();
  BridgeLoop(const BridgeLoop&) = delete;
  BridgeLoop& operator=(const BridgeLoop&) = delete;

  /**
   * Serves the connections arriving on @p listen_fd (listening,
   * non-blocking; the loop owns it from now on) on a new thread. @return
   * false, the fd closed, when the thread cannot start or already runs.
   */
  bool start(int listen_fd);
  /**
   * Closes the listening socket, drops the handshakes still reading, closes
   * every terminal with 1001 (cut off after close_wait when the client does
   * not answer) and joins the thread. start() may follow.
   */
  void stop() noexcept;
  /** Terminals being served (tests, diagnostics). */
  std::size_t size() const { return size_.load(); }
  /** Connections not yet bridged: reading their head or being answered. */
  std::size_t handshakes() const { return handshakes_.load(); }

 private:
  struct LinkEntry;
  struct HandshakeEntry;
  void run() noexcept;
  bool turn(std::chrono::steady_clock::time_point& next_tick) noexcept;
  void dispatch(std::uint64_t key, std::uint32_t events) noexcept;
  void acceptAll() noexcept;
  void admit(int fd);
  void decide(HandshakeEntry& entry) noexcept;
  void attach(UpgradedSocket socket, const std::shared_ptr<Session>& session);
  void serve(LinkEntry& entry, int kind, std::uint32_t events) noexcept;
  void sync(LinkEntry& entry) noexcept;
  void sync(HandshakeEntry& entry) noexcept;
  void unregister(LinkEntry& entry) noexcept;
  void closeListener() noexcept;
  void pauseListener(bool paused) noexcept;
  void timers(bool stopping, std::chrono::steady_clock::time_point& next_tick) noexcept;
  void reap() noexcept;
  int waitMillis(bool stopping, std::chrono::steady_clock::time_point next_tick) const;

  const BridgeOptions options_;
  const HandshakeJudge judge_;
  std::mutex mutex_;  // start/stop
  std::thread thread_;
  std::atomic<bool> stop_{false};
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<std::size_t> size_{0};
  std::atomic<std::size_t> handshakes_{0};

  // The loop thread's own (set up by start() before the thread runs).
  int listen_fd_ = -1;
  std::optional<std::chrono::steady_clock::time_point> listen_paused_until_;
  std::uint64_t next_id_ = 1;
  std::vector<std::unique_ptr<LinkEntry>> links_;
  std::vector<std::unique_ptr<HandshakeEntry>> handshakes_in_progress_;
};

}  // namespace abx::plugins::terminal
