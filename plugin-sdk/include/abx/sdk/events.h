// EventBus: topics with per-topic ring buffers and monotonic sequence
// numbers. Publishers never block on subscribers: a subscriber that falls
// behind the ring gets a gap marker and resumes at the oldest kept event.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::sdk {

struct Event {
  std::uint64_t seq = 0; /**< per topic, starts at 1, never reused */
  std::string type;
  std::string data; /**< usually JSON text */
  /** A gap marker: `missed` events were dropped before `seq`. */
  bool gap = false;
  std::uint64_t missed = 0;
};

/**
 * A cursor on one topic. Destroying it unsubscribes.
 * THREAD: one consumer thread per subscription.
 */
class ABX_SDK_API Subscription {
 public:
  virtual ~Subscription();
  /**
   * The next event after the cursor, waiting up to @p timeout.
   * @return nullopt on timeout or once the bus is closed (see closed()).
   */
  virtual std::optional<Event> next(std::chrono::milliseconds timeout) = 0;
  virtual bool closed() const = 0;
};

class ABX_SDK_API EventBus {
 public:
  /** Appends an event. @return its sequence number. Never blocks on readers. */
  virtual std::uint64_t publish(std::string_view topic, std::string_view type,
                                std::string_view data) = 0;
  /** The last sequence number published on @p topic (0 if none). */
  virtual std::uint64_t lastSeq(std::string_view topic) const = 0;
  /**
   * Subscribes after @p after_seq (replay what the ring still holds), or at
   * the current end when nullopt. Fails when the topic has its maximum of
   * subscribers (type ResourceError).
   */
  virtual Result<std::unique_ptr<Subscription>> subscribe(
      std::string_view topic, std::optional<std::uint64_t> after_seq = std::nullopt) = 0;

 protected:
  ~EventBus();
};

}  // namespace abx::sdk
