// LoopStream: an SSE stream its handler detached to the event loop. The
// loop pumps it — pulls the feed's text when the socket can take more,
// frames it as HTTP chunks, sends without blocking — so a stream holds no
// thread while it waits, and a slow client only lags its own feed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "abx/sdk/http.h"

namespace abx::kernel {

class LoopStream;

/** The event loop as a stream sees it. */
class StreamScheduler {
 public:
  /** Pump @p stream soon, on the loop thread. THREAD: any. */
  virtual void schedule(std::shared_ptr<LoopStream> stream) = 0;

 protected:
  ~StreamScheduler() = default;
};

class LoopStream final : public sdk::SseWaker, public std::enable_shared_from_this<LoopStream> {
 public:
  using Clock = std::chrono::steady_clock;
  /** What the loop does next with the stream. */
  enum class Next {
    wait_for_wake,   /**< everything sent; the feed has nothing more */
    wait_for_socket, /**< the socket is full: pump again when it is writable */
    again,           /**< this turn's share used: pump again after the others */
    close,           /**< ended (the feed's last text sent) or the client is gone */
  };

  /**
   * @p unsent_head: the response head if the worker did not send it;
   * @p chunked: frame the feed's text as chunks and ping (an SSE body), or
   * send it as it is (a deferred whole answer); @p hold: kept until the
   * stream ends (the request's concurrency slot).
   */
  LoopStream(int fd, std::string unsent_head, std::shared_ptr<sdk::SseFeed> feed, bool chunked,
             std::shared_ptr<void> hold, StreamScheduler& scheduler);

  void wake() override;
  bool open() const override { return open_.load(std::memory_order_acquire); }

  // The loop thread's only.
  int fd() const { return fd_; }
  Next pump();
  /** Queues `: ping` if nothing was sent for @p idle; then pump. */
  bool idleFor(Clock::time_point now, Clock::duration idle) const;
  /** Bytes wait for the socket and it took none for @p limit: the client stopped reading. */
  bool stalledFor(Clock::time_point now, Clock::duration limit) const;
  void queuePing();
  /** Best effort: the body's last chunk, without waiting. */
  void finishNow();
  /** The stream is over: tells the feed and lets it go. */
  void closed();

 private:
  /** Sends what is queued; false when the client is gone. */
  bool flush();
  /** Appends the feed's next text as one chunk. */
  sdk::SseFeed::Pull pullChunk();

  const int fd_;
  const bool chunked_;
  std::shared_ptr<sdk::SseFeed> feed_;
  std::shared_ptr<void> hold_;
  StreamScheduler& scheduler_;
  std::string out_;  // framed bytes not yet sent
  std::size_t sent_ = 0;
  bool last_ = false;                // out_ ends with the terminating chunk
  Clock::time_point last_write_;     // everything queued was sent
  Clock::time_point last_progress_;  // the socket took a byte
  std::atomic<bool> open_{true};
  std::atomic<bool> due_{false};  // scheduled and not yet pumped
};

}  // namespace abx::kernel
