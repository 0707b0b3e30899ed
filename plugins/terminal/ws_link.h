// One bridged terminal on the bridge thread (spec §5): the state of one
// WebSocket client and its PTY session — a started event first, output
// frames as the shell writes, input / resize / signal frames from the
// client, the exited event after the shell ended and its last output was
// drained, pings, and the closing handshake. It never blocks: the bridge
// loop (ws_bridge.h) tells it which of its fds are ready and asks which
// readiness it wants next. Input waits in a bounded buffer and the client is
// not read while it is full; output waits in a bounded queue and the shell
// is not read while the client lags.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "session_table.h"
#include "utf8_chunker.h"
#include "ws_bridge.h"
#include "ws_frame.h"
#include "ws_handshake.h"

namespace abx::plugins::terminal {

/** THREAD: the bridge thread only (constructed anywhere). */
class WsLink {
 public:
  using Clock = std::chrono::steady_clock;

  /**
   * Takes over @p socket (non-blocking, upgraded; its 101 answer may still
   * be unsent). @p attachment: what session->attach() returned for this client.
   */
  WsLink(UpgradedSocket socket, std::shared_ptr<Session> session, std::uint64_t attachment,
         const BridgeOptions& options);
  ~WsLink();
  WsLink(const WsLink&) = delete;
  WsLink& operator=(const WsLink&) = delete;

  /** Queues the started event and handles what the client already sent. */
  void begin();

  // The fds to watch (-1: none). The PTY ones are this link's own
  // duplicates, so two links of one session never share an epoll entry.
  int socketFd() const { return socket_fd_; }
  int masterFd() const { return master_fd_; }
  int exitFd() const { return exit_fd_; }
  /** The epoll events wanted on each fd now; 0: unregister it. */
  std::uint32_t socketInterest() const;
  std::uint32_t masterInterest() const;
  std::uint32_t exitInterest() const;

  void onSocket(std::uint32_t events);
  void onMaster(std::uint32_t events);
  void onExit();
  /** Timers and flags: service stop, a takeover, pings, drain and close deadlines. */
  void tick(bool stopping, Clock::time_point now);
  /** The earliest time tick() has something to do (a drain or close deadline). */
  std::optional<Clock::time_point> deadline() const;

  /** Finished: the socket is closed and the session detached. */
  bool done() const { return state_ == State::done; }
  /** Ends the link at once (the loop could not serve it). */
  void abort() noexcept;
  BridgeEnd end() const { return end_; }

 private:
  // open: bridging. draining: the shell ended, its last output is read.
  // closing: our close frame is out, the client's is awaited. flushing: the
  // client closed, our answer is being sent. discarding: after 1009, what
  // the client still sends is read away so the close frame is not lost to a
  // reset.
  enum class State { open, draining, closing, flushing, discarding, done };

  bool wantClient() const;
  void readSocket();
  void handleFrames();
  bool handleFrame(const WsFrame& frame);
  void handleText(std::string_view text);
  void readMaster();
  void writeMaster();
  void flush();
  void queue(int flags, std::string_view payload);
  void sendText(const std::string& text);
  void forward(const std::string& text);
  void startDrain(int exit_code);
  void finishDrain();
  void startClose(std::uint16_t code, std::string_view reason, BridgeEnd end);
  void finish(BridgeEnd end);

  std::shared_ptr<Session> session_;
  PtyProcess& process_;
  const std::uint64_t attachment_;
  const BridgeOptions options_;
  int socket_fd_ = -1;           // owned
  std::shared_ptr<void> lease_;  // pty_connect's concurrency slot, while connected
  int master_fd_ = -1;
  int exit_fd_ = -1;
  State state_ = State::open;
  BridgeEnd end_ = BridgeEnd::client_gone;
  bool write_shut_ = false;
  bool master_eof_ = false;
  bool exit_seen_ = false;
  int exit_code_ = 0;

  WsFrameReader reader_;
  std::string out_;      // encoded frames not yet taken by the socket
  std::string pending_;  // input not yet written to the PTY
  std::string message_;  // a fragmented message being reassembled
  bool in_message_ = false;
  bool message_text_ = false;
  Utf8Chunker chunker_;

  Clock::time_point last_sent_ = Clock::now();
  Clock::time_point last_progress_ = Clock::now();  // the socket last took bytes
  Clock::time_point drain_end_{};
  Clock::time_point quiet_end_{};
  Clock::time_point close_end_{};
};

}  // namespace abx::plugins::terminal
