// EventRing: one session's RuntimeEvents in a bounded ring (default 20 000)
// with monotonic sequence numbers, so a live tail can subscribe at the
// current position or replay from an earlier one (agents spec §6.1, §6.6).
// A reader that fell behind the ring's oldest event is told so (gap).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "runtime_types.h"

namespace abx::plugins::agents {

/** THREAD: safe. */
class EventRing {
 public:
  explicit EventRing(std::size_t capacity);

  /** Assigns the next sequence number and stores @p event. @return its seq. */
  std::uint64_t publish(RuntimeEvent event);

  struct Read {
    std::vector<RuntimeEvent> events;
    bool gap = false; /**< events after `after` were already dropped */
  };
  /** Up to @p max events with seq > @p after, oldest first. */
  Read readAfter(std::uint64_t after, std::size_t max = 1024) const;
  /** Waits until an event with seq > @p after exists, the ring closes, or @p timeout. */
  bool waitAfter(std::uint64_t after, std::chrono::milliseconds timeout) const;
  std::uint64_t lastSeq() const;
  /** Wakes every waiter for good (session deleted, server stopping). */
  void close();
  bool closed() const;

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<RuntimeEvent> events_;
  std::uint64_t last_seq_ = 0;
  bool closed_ = false;
};

}  // namespace abx::plugins::agents
