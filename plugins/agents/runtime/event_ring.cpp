#include "event_ring.h"

#include <algorithm>

namespace abx::plugins::agents {

EventRing::EventRing(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

std::uint64_t EventRing::publish(RuntimeEvent event) {
  std::uint64_t seq;
  {
    std::lock_guard lock(mutex_);
    seq = ++last_seq_;
    event.seq = seq;
    events_.push_back(std::move(event));
    if (events_.size() > capacity_) events_.pop_front();
  }
  changed_.notify_all();
  return seq;
}

EventRing::Read EventRing::readAfter(std::uint64_t after, std::size_t max) const {
  Read out;
  std::lock_guard lock(mutex_);
  if (events_.empty() || after >= last_seq_) return out;
  const std::uint64_t first = events_.front().seq;
  if (after + 1 < first) {
    out.gap = true;
    after = first - 1;
  }
  std::size_t index = static_cast<std::size_t>(after + 1 - first);
  for (; index < events_.size() && out.events.size() < max; ++index)
    out.events.push_back(events_[index]);
  return out;
}

bool EventRing::waitAfter(std::uint64_t after, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return closed_ || last_seq_ > after; }) &&
         last_seq_ > after;
}

std::uint64_t EventRing::lastSeq() const {
  std::lock_guard lock(mutex_);
  return last_seq_;
}

void EventRing::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool EventRing::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

}  // namespace abx::plugins::agents
