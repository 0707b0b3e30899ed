// SessionFeed: what one subscriber of a session's events is sent — the
// session's ring from the subscriber's position on, the gap it is told of
// when it fell behind the ring, and, for a create-and-stream, the end at
// the session's first idle after its turn. followSession() hands it to the
// server's event loop, so a subscriber holds no thread while it waits.
#pragma once

#include <cstdint>
#include <memory>

#include "abx/sdk/http.h"
#include "session_stream.h"

namespace abx::plugins::agents {

class SessionFeed final : public sdk::SseFeed {
 public:
  /** @p subscribed: this feed holds one of the stream's subscriber places. */
  SessionFeed(std::shared_ptr<SessionStream> stream, std::uint64_t after, bool until_idle,
              bool subscribed);
  ~SessionFeed() override;

  Pull pull(std::string& out, std::size_t budget) override;
  /** The last event sent (its sequence number). */
  std::uint64_t position() const { return after_; }

 private:
  /** Appends @p e; notes the end of a create-and-stream. */
  void take(const SessionStream::Event& e, std::string& out);

  const std::shared_ptr<SessionStream> stream_;
  std::uint64_t after_;
  const bool until_idle_;
  const bool subscribed_;
  bool turn_ended_ = false;
  bool stop_ = false;
};

/**
 * Streams @p stream from @p after to @p sse: on the event loop when the
 * stream can be detached, else on this thread until the client or the feed
 * ends. @p until_idle ends it at the first idle after a turn ended.
 */
void followSession(std::shared_ptr<SessionStream> stream, sdk::SseStream& sse, std::uint64_t after,
                   bool until_idle, bool subscribed);

}  // namespace abx::plugins::agents
