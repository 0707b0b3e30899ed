#include "shell_feed.h"

#include <utility>

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;

// What serve() writes per send: a catching-up client gets few big writes.
constexpr std::size_t kServeBudget = 256 * 1024;
// Every encoded event ends with a blank line; no event holds one inside.
constexpr std::string_view kEventEnd = "\n\n";

}  // namespace

ShellFeed::ShellFeed(std::size_t bound, std::function<void()> poke)
    : bound_(bound), poke_(std::move(poke)) {}

ShellFeed::Push ShellFeed::push(std::string_view frames) {
  std::lock_guard lock(mutex_);
  if (gone_ || ended_) return Push::gone;
  queue_ += frames;
  if (queue_.size() - head_ < bound_) return Push::ok;
  holding_ = true;
  return Push::full;
}

void ShellFeed::finish(std::string_view frames) {
  {
    std::lock_guard lock(mutex_);
    if (gone_ || ended_) return;
    queue_ += frames;
    ended_ = true;
  }
  wake();
}

bool ShellFeed::holdsProducer() const {
  std::lock_guard lock(mutex_);
  return holding_;
}

bool ShellFeed::gone() const {
  std::lock_guard lock(mutex_);
  return gone_ || ended_;
}

void ShellFeed::wake() {
  std::shared_ptr<sdk::SseWaker> waker;
  {
    std::lock_guard lock(mutex_);
    waker = waker_;
  }
  if (waker)
    waker->wake();
  else
    ready_.notify_all();
}

void ShellFeed::setWaker(std::shared_ptr<sdk::SseWaker> waker) {
  {
    std::lock_guard lock(mutex_);
    waker_ = std::move(waker);
  }
  wake();  // text queued before the waker was known woke no one
}

sdk::SseFeed::Pull ShellFeed::pull(std::string& out, std::size_t budget) {
  bool resume = false;
  Pull result;
  {
    std::lock_guard lock(mutex_);
    result = takeLocked(out, budget);
    // Half the bound taken: the producer reads its pipes again.
    if (holding_ && queue_.size() - head_ <= bound_ / 2) {
      holding_ = false;
      resume = true;
    }
  }
  if (resume && poke_) poke_();
  return result;
}

sdk::SseFeed::Pull ShellFeed::takeLocked(std::string& out, std::size_t budget) {
  const std::string_view left = std::string_view(queue_).substr(head_);
  if (left.empty()) return ended_ ? Pull::end : Pull::wait;
  std::size_t take = left.size();
  if (take > budget) {
    // Whole events only: up to the last event end within the budget, or the first one.
    std::size_t cut = left.rfind(kEventEnd, budget - kEventEnd.size());
    if (budget < kEventEnd.size() || cut == std::string_view::npos) cut = left.find(kEventEnd);
    take = cut == std::string_view::npos ? left.size() : cut + kEventEnd.size();
  }
  out.append(left.substr(0, take));
  head_ += take;
  compactLocked();
  if (head_ < queue_.size()) return Pull::more;
  return ended_ ? Pull::end : Pull::wait;
}

void ShellFeed::compactLocked() {
  if (head_ == queue_.size()) {
    // A flood's big buffer is not kept once it is sent.
    if (queue_.capacity() > 64 * 1024)
      std::string().swap(queue_);
    else
      queue_.clear();
    head_ = 0;
  } else if (head_ > 64 * 1024 && head_ * 2 > queue_.size()) {
    queue_.erase(0, head_);
    head_ = 0;
  }
}

void ShellFeed::closed() {
  {
    std::lock_guard lock(mutex_);
    if (gone_ || ended_) return;
    gone_ = true;
    holding_ = false;
    std::string().swap(queue_);
    head_ = 0;
  }
  ready_.notify_all();
  if (poke_) poke_();
}

void ShellFeed::serve(sdk::SseStream& stream, std::chrono::milliseconds probe) {
  std::string out;
  auto last_write = Clock::now();
  while (true) {
    out.clear();
    Pull result = Pull::wait;
    {
      std::unique_lock lock(mutex_);
      ready_.wait_for(lock, probe, [&] { return gone_ || ended_ || head_ < queue_.size(); });
      if (gone_) return;
    }
    result = pull(out, kServeBudget);
    if (!out.empty()) {
      if (!stream.frames(out)) break;
      last_write = Clock::now();
    }
    if (result == Pull::end) return;
    if (!stream.open()) break;
    // A write is this thread's only way to learn that the client left.
    if (out.empty() && Clock::now() - last_write >= probe) {
      if (!stream.comment("keep-alive")) break;
      last_write = Clock::now();
    }
  }
  closed();
}

}  // namespace abx::plugins::process
