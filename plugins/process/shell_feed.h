// ShellFeed: the events of one POST /shell/stream between the thread that
// reads the command's pipes (the producer) and the client. The text is
// encoded once, queued up to a bound and taken by the server's event loop
// (pull()) as the client can receive it. When the queue is full the producer
// stops reading the command's pipes until the client took half of it, so a
// slow client costs a bounded queue and makes the command wait on its
// writes, as a slow terminal would. A client that hangs up (closed()) is
// reported to the producer, which then stops the command.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "abx/sdk/http.h"

namespace abx::plugins::process {

class ShellFeed final : public sdk::SseFeed {
 public:
  /** What a push did. */
  enum class Push {
    ok,   /**< queued; the producer may go on */
    full, /**< queued, and the queue reached its bound: stop reading until woken */
    gone, /**< dropped: the client went away */
  };

  /**
   * @p bound: queued bytes at which the producer is held. @p poke: asks the
   * producer to look at this feed again (the client took enough text, or
   * went away); called without the feed's lock, from the loop's thread.
   */
  ShellFeed(std::size_t bound, std::function<void()> poke);

  // The producer's side (one thread).
  /** Queues encoded SSE text (sdk::appendSseFrame). */
  Push push(std::string_view frames);
  /** Queues the last text of the stream (past the bound): the stream ends after it. */
  void finish(std::string_view frames);
  /** True while a full queue holds the producer. */
  bool holdsProducer() const;
  /** True once the client went away (or the stream ended). */
  bool gone() const;
  /** Tells the consumer that text (or the end) is there: the loop's waker, or serve(). */
  void wake();

  // The consumer's side.
  /** The loop's handle once the stream was detached; wakes it if text is already queued. */
  void setWaker(std::shared_ptr<sdk::SseWaker> waker);
  /** Whole events, about @p budget bytes at most, at least one. */
  Pull pull(std::string& out, std::size_t budget) override;
  /** The client went away (or the stream ended): the producer stops. */
  void closed() override;
  /**
   * For a stream that could not be detached: writes the feed to @p stream on
   * this thread until it ends or the client goes; while nothing comes, a
   * `: keep-alive` comment every @p probe notices a closed connection.
   */
  void serve(sdk::SseStream& stream, std::chrono::milliseconds probe);

 private:
  Pull takeLocked(std::string& out, std::size_t budget);
  /** Frees the consumed head once it is most of the buffer. */
  void compactLocked();

  const std::size_t bound_;
  const std::function<void()> poke_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;  // serve() waits here
  std::string queue_;              // encoded text; [head_, size) not yet taken
  std::size_t head_ = 0;
  bool ended_ = false;    // finish() queued the last text
  bool gone_ = false;     // closed() before the end
  bool holding_ = false;  // the producer stopped at a full queue
  std::shared_ptr<sdk::SseWaker> waker_;
};

}  // namespace abx::plugins::process
