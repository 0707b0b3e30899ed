#include "http/loop_stream.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstdio>

namespace abx::kernel {
namespace {

// Text pulled from a feed per chunk: large enough that a catching-up client
// gets few big sends, small enough to stay in cache.
constexpr std::size_t kPullBudget = 64 * 1024;
constexpr std::size_t kKeptCapacity = 4 * 1024;
// Pulls per pump before the other streams get their turn.
constexpr int kPullsPerTurn = 8;
// A chunk's size field, written before the size is known: fixed-width hex
// (leading zeros are valid chunk-size digits) so it can be patched in place.
constexpr std::string_view kSizePlaceholder = "00000000\r\n";

}  // namespace

LoopStream::LoopStream(int fd, std::string unsent_head, std::shared_ptr<sdk::SseFeed> feed,
                       bool chunked, std::shared_ptr<void> hold, StreamScheduler& scheduler)
    : fd_(fd),
      chunked_(chunked),
      feed_(std::move(feed)),
      hold_(std::move(hold)),
      scheduler_(scheduler),
      out_(std::move(unsent_head)),
      last_write_(Clock::now()),
      last_progress_(last_write_) {}

void LoopStream::wake() {
  if (!open()) return;
  // Many wakes before the next pump cost one scheduling.
  if (!due_.exchange(true, std::memory_order_acq_rel)) scheduler_.schedule(shared_from_this());
}

LoopStream::Next LoopStream::pump() {
  // Cleared first: a wake while pulling schedules another pump, none is lost.
  due_.store(false, std::memory_order_release);
  if (!open()) return Next::close;
  for (int pulls = 0; pulls < kPullsPerTurn; ++pulls) {
    if (!flush()) return Next::close;
    if (sent_ < out_.size()) return Next::wait_for_socket;
    if (last_) return Next::close;
    if (!feed_) return Next::wait_for_wake;
    if (pullChunk() == sdk::SseFeed::Pull::wait && out_.empty()) return Next::wait_for_wake;
  }
  if (!flush()) return Next::close;
  return sent_ < out_.size() ? Next::wait_for_socket : Next::again;
}

bool LoopStream::flush() {
  while (sent_ < out_.size()) {
    ssize_t n = ::send(fd_, out_.data() + sent_, out_.size() - sent_, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent_ += static_cast<std::size_t>(n);
      last_progress_ = Clock::now();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  // A catching-up client's big buffer is not kept by thousands of idle streams.
  if (out_.capacity() > kKeptCapacity)
    std::string().swap(out_);
  else
    out_.clear();
  sent_ = 0;
  last_write_ = Clock::now();
  return true;
}

sdk::SseFeed::Pull LoopStream::pullChunk() {
  if (!chunked_) {
    auto pull = sdk::SseFeed::Pull::end;
    try {
      pull = feed_->pull(out_, kPullBudget);
    } catch (...) {
    }
    last_ = pull == sdk::SseFeed::Pull::end;
    return pull;
  }
  const std::size_t at = out_.size();
  out_ += kSizePlaceholder;
  const std::size_t body = out_.size();
  auto pull = sdk::SseFeed::Pull::end;
  try {
    pull = feed_->pull(out_, kPullBudget);
  } catch (...) {
    out_.resize(body);  // a feed that throws ends its stream, cleanly framed
  }
  const std::size_t size = out_.size() - body;
  if (size == 0) {
    out_.resize(at);
  } else {
    char digits[9];  // a pull is far below 4 GiB: eight hex digits hold its size
    std::snprintf(digits, sizeof digits, "%08x", static_cast<unsigned>(size));
    out_.replace(at, 8, digits, 8);
    out_ += "\r\n";
  }
  if (pull == sdk::SseFeed::Pull::end) {
    out_ += "0\r\n\r\n";
    last_ = true;
  }
  return pull;
}

bool LoopStream::idleFor(Clock::time_point now, Clock::duration idle) const {
  return chunked_ && out_.empty() && !last_ && now - last_write_ >= idle;
}

bool LoopStream::stalledFor(Clock::time_point now, Clock::duration limit) const {
  return sent_ < out_.size() && now - last_progress_ >= limit;
}

void LoopStream::queuePing() { out_ += "8\r\n: ping\n\n\r\n"; }

void LoopStream::finishNow() {
  if (!chunked_ || last_ || !open()) return;
  // Only when nothing half-sent is queued: a cut chunk must not look whole.
  if (sent_ == 0) {
    out_ = "0\r\n\r\n";
    last_ = true;
    flush();
  }
}

void LoopStream::closed() {
  open_.store(false, std::memory_order_release);
  hold_.reset();
  if (auto feed = std::move(feed_)) {
    try {
      feed->closed();
    } catch (...) {
    }
  }
}

}  // namespace abx::kernel
