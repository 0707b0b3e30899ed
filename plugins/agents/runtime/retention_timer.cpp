#include "retention_timer.h"

#include <pthread.h>

#include <algorithm>
#include <system_error>

namespace abx::plugins::agents {

RetentionTimer::RetentionTimer(std::chrono::milliseconds interval, std::function<void()> tick)
    : interval_(interval), tick_(std::move(tick)) {}

void RetentionTimer::start() {
  std::lock_guard lock(mutex_);
  if (stopping_ || thread_.joinable()) return;
  try {
    thread_ = std::thread([this] { loop(); });
    ::pthread_setname_np(thread_.native_handle(), "abx-agents-ttl");
  } catch (const std::system_error&) {
    // Without the thread retention still runs when a session is created.
  }
}

void RetentionTimer::stop() {
  std::thread joined;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    joined = std::move(thread_);
  }
  wake_.notify_all();
  if (joined.joinable()) joined.join();
}

void RetentionTimer::loop() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    tick_();
    lock.lock();
  }
}

std::chrono::milliseconds retentionInterval(std::int64_t session_ttl_s) {
  const auto quarter = std::chrono::milliseconds(std::max<std::int64_t>(session_ttl_s, 0) * 250);
  return std::clamp(quarter, std::chrono::milliseconds(250), std::chrono::milliseconds(60000));
}

}  // namespace abx::plugins::agents
