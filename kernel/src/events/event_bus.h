// EventBus: the kernel's in-process implementation of abx::sdk::EventBus —
// per-topic ring buffers, replay by sequence number, gap markers for readers
// that fall behind, and close() to release every waiting reader at shutdown.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "abx/sdk/events.h"

namespace abx::kernel {

/**
 * Readers pull from a cursor into the topic's ring instead of being pushed to,
 * so a publisher only ever appends and notifies: a stalled reader costs it
 * nothing and later learns, from one gap marker, how many events it lost.
 *
 * Topics are created on first use and kept for the bus's lifetime.
 *
 * LIFETIME: the bus must outlive every Subscription it hands out; the kernel
 * destroys plugins (and with them their subscriptions) before the bus.
 * THREAD: every member is thread-safe; each Subscription has one consumer.
 */
class EventBus final : public sdk::EventBus {
 public:
  /** @p ring_capacity events are kept per topic (at least 1). */
  explicit EventBus(std::size_t ring_capacity = 1024, std::size_t max_subscribers_per_topic = 64);
  ~EventBus();
  EventBus(const EventBus&) = delete;
  EventBus& operator=(const EventBus&) = delete;

  std::uint64_t publish(std::string_view topic, std::string_view type,
                        std::string_view data) override;
  std::uint64_t lastSeq(std::string_view topic) const override;
  /**
   * An @p after_seq beyond the topic's last sequence (a cursor from an earlier
   * run of the server) subscribes at the current end rather than waiting for
   * the sequence to catch up and silently skipping events until then.
   */
  sdk::Result<std::unique_ptr<sdk::Subscription>> subscribe(
      std::string_view topic, std::optional<std::uint64_t> after_seq = std::nullopt) override;

  /**
   * Wakes every waiting next(); from now on next() returns nullopt at once
   * and closed() is true, also for subscriptions made later. Publishing still
   * works (and is ignored by readers), so late producers need no special case.
   */
  void close();
  bool isClosed() const noexcept { return closed_.load(); }

 private:
  struct Topic;
  class Cursor;

  Topic* findTopic(std::string_view name) const;
  Topic& topicFor(std::string_view name);

  const std::size_t ring_capacity_;
  const std::size_t max_subscribers_;
  mutable std::shared_mutex topics_mu_;
  std::map<std::string, std::unique_ptr<Topic>, std::less<>> topics_;
  std::atomic<bool> closed_{false};
};

}  // namespace abx::kernel
