// One connection on the PTY port from its accept until it is bridged or
// closed, driven by the port's loop thread (ws_bridge.h) and never
// blocking: its request head is read under the handshake deadline (bounded:
// 431 beyond kMaxHeadBytes), the loop has the service judge it, and the
// answer is written — a refusal (then the connection closes), a 101 with a
// close frame and the closing handshake (1008), or a 101 handed over with
// the socket to a WsLink (ws_link.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "session_table.h"
#include "ws_frame.h"
#include "ws_http.h"

namespace abx::plugins::terminal {

/** An upgraded connection on its way to a WsLink. */
struct UpgradedSocket {
  int fd = -1;                 /**< non-blocking; owned by whoever holds this */
  std::string unsent;          /**< the 101 answer, or what of it the socket has not taken */
  std::string unread;          /**< what the client sent behind its request head (frames) */
  std::shared_ptr<void> lease; /**< pty_connect's concurrency slot: kept while connected */
};

/** The service's answer to one upgrade request. */
struct HandshakeDecision {
  enum class Kind {
    refuse, /**< write `answer` (an HTTP error) and close */
    close,  /**< write `answer` (the 101), close with close_code and close_reason */
    attach  /**< write `answer` (the 101) and bridge the connection to `session` */
  };
  Kind kind = Kind::refuse;
  std::string answer;
  std::uint16_t close_code = 0;
  std::string close_reason;
  std::shared_ptr<Session> session;
  std::shared_ptr<void> lease;
};

/** THREAD: the loop thread only. */
class WsHandshake {
 public:
  using Clock = std::chrono::steady_clock;

  /** Takes @p fd (accepted, non-blocking); its head must be complete by @p deadline. */
  WsHandshake(int fd, Clock::time_point deadline, std::chrono::milliseconds close_wait);
  ~WsHandshake();
  WsHandshake(const WsHandshake&) = delete;
  WsHandshake& operator=(const WsHandshake&) = delete;

  int fd() const { return fd_; }
  /** The epoll events wanted now; 0 once done. */
  std::uint32_t interest() const;
  void onSocket(std::uint32_t events);
  /** Ends a connection whose deadline has come. */
  void tick(Clock::time_point now);
  Clock::time_point deadline() const { return deadline_; }

  /** Still waiting for (the rest of) its request head. */
  bool reading() const { return state_ == State::reading; }
  /** The head is complete and parsed: the loop judges it, then calls answer() or upgrade(). */
  const sdk::RequestHead* judging() const { return state_ == State::judging ? &head_ : nullptr; }
  /** Writes a refusal or a 101 and close (not attach). */
  void answer(const HandshakeDecision& decision);
  /** Hands the socket over with the 101 in @p decision (attach); this handshake is done. */
  UpgradedSocket upgrade(HandshakeDecision& decision);
  /** Ends the connection now (stopping, or room for a newer one). */
  void drop() { finish(); }
  /** Finished; the destructor closes the socket. */
  bool done() const { return state_ == State::done; }

 private:
  // reading: the head is arriving. judging: the loop decides. writing: the
  // answer goes out. closing: after our close frame, the client's is awaited.
  enum class State { reading, judging, writing, closing, done };

  void readHead();
  void refuse(int status, const std::string& message);
  void flush();
  void readClose();
  void finish();

  int fd_;
  State state_ = State::reading;
  Clock::time_point deadline_;
  const std::chrono::milliseconds close_wait_;
  std::string in_;
  sdk::RequestHead head_;
  std::string out_;
  bool close_after_write_ = true;
  WsFrameReader frames_;
};

}  // namespace abx::plugins::terminal
