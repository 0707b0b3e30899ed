// EventBus (see event_bus.h): per-topic rings indexed by sequence number and
// the pull cursors that read them.
#include "events/event_bus.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

namespace abx::kernel {

struct EventBus::Topic {
  std::mutex mu;
  std::condition_variable cv;
  // Event seq lives in slot (seq - 1) % capacity; allocated on first publish.
  // shared_ptr so readers copy the event outside the lock.
  std::vector<std::shared_ptr<const sdk::Event>> ring;
  std::uint64_t last_seq = 0;
  std::size_t subscribers = 0;

  std::uint64_t oldestKept(std::size_t capacity) const {
    const std::uint64_t kept = std::min<std::uint64_t>(last_seq, capacity);
    return last_seq - kept + 1;
  }
};

class EventBus::Cursor final : public sdk::Subscription {
 public:
  Cursor(const EventBus& bus, Topic& topic, std::uint64_t after)
      : bus_(bus), topic_(topic), cursor_(after) {}
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  ~Cursor() override {
    std::lock_guard lock(topic_.mu);
    --topic_.subscribers;
  }

  std::optional<sdk::Event> next(std::chrono::milliseconds timeout) override {
    // Clamped: milliseconds::max() would overflow the clock's nanoseconds.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::clamp(timeout, std::chrono::milliseconds{0},
                                     std::chrono::milliseconds{std::chrono::hours(24 * 365 * 10)});
    std::shared_ptr<const sdk::Event> event;
    {
      std::unique_lock lock(topic_.mu);
      const bool ready = topic_.cv.wait_until(
          lock, deadline, [&] { return bus_.closed_.load() || cursor_ < topic_.last_seq; });
      if (!ready || bus_.closed_.load()) return std::nullopt;
      const std::uint64_t oldest = topic_.oldestKept(bus_.ring_capacity_);
      if (cursor_ + 1 < oldest) {
        sdk::Event gap;
        gap.gap = true;
        gap.seq = oldest;
        gap.missed = oldest - (cursor_ + 1);
        cursor_ = oldest - 1;
        return gap;
      }
      event = topic_.ring[cursor_ % bus_.ring_capacity_];
      ++cursor_;
    }
    return *event;
  }

  bool closed() const override { return bus_.closed_.load(); }

 private:
  const EventBus& bus_;
  Topic& topic_;
  std::uint64_t cursor_;  // last seq handed out (or skipped by a gap marker)
};

EventBus::EventBus(std::size_t ring_capacity, std::size_t max_subscribers_per_topic)
    : ring_capacity_(std::max<std::size_t>(ring_capacity, 1)),
      max_subscribers_(max_subscribers_per_topic) {}

EventBus::~EventBus() = default;

EventBus::Topic* EventBus::findTopic(std::string_view name) const {
  std::shared_lock lock(topics_mu_);
  const auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : it->second.get();
}

EventBus::Topic& EventBus::topicFor(std::string_view name) {
  if (Topic* topic = findTopic(name)) return *topic;
  std::unique_lock lock(topics_mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) it = topics_.emplace(std::string(name), std::make_unique<Topic>()).first;
  return *it->second;
}

std::uint64_t EventBus::publish(std::string_view topic, std::string_view type,
                                std::string_view data) {
  // Built outside the lock: the copies are the expensive part.
  auto event = std::make_shared<sdk::Event>();
  event->type.assign(type);
  event->data.assign(data);
  Topic& t = topicFor(topic);
  std::shared_ptr<const sdk::Event> evicted;
  std::uint64_t seq;
  {
    std::lock_guard lock(t.mu);
    if (t.ring.empty()) t.ring.resize(ring_capacity_);
    seq = ++t.last_seq;
    event->seq = seq;
    auto& slot = t.ring[(seq - 1) % ring_capacity_];
    evicted = std::exchange(slot, std::move(event));
  }
  t.cv.notify_all();
  return seq;  // `evicted` is freed here, outside the lock
}

std::uint64_t EventBus::lastSeq(std::string_view topic) const {
  Topic* t = findTopic(topic);
  if (t == nullptr) return 0;
  std::lock_guard lock(t->mu);
  return t->last_seq;
}

sdk::Result<std::unique_ptr<sdk::Subscription>> EventBus::subscribe(
    std::string_view topic, std::optional<std::uint64_t> after_seq) {
  Topic& t = topicFor(topic);
  std::lock_guard lock(t.mu);
  if (t.subscribers >= max_subscribers_) {
    return sdk::Status::error("topic '" + std::string(topic) + "' already has the maximum of " +
                                  std::to_string(max_subscribers_) + " subscribers",
                              "ResourceError");
  }
  const std::uint64_t after = std::min(after_seq.value_or(t.last_seq), t.last_seq);
  std::unique_ptr<sdk::Subscription> sub = std::make_unique<Cursor>(*this, t, after);
  ++t.subscribers;
  return sub;
}

void EventBus::close() {
  closed_.store(true);
  std::shared_lock lock(topics_mu_);
  for (auto& [name, topic] : topics_) {
    // Taking the topic lock orders the flag before any waiter's predicate
    // check, so no waiter can miss the notify.
    { std::lock_guard topic_lock(topic->mu); }
    topic->cv.notify_all();
  }
}

}  // namespace abx::kernel
