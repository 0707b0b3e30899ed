// RetentionTimer: runs the session retention of AgentRuntime (TTL and
// max_sessions) on a period, so sessions expire while nobody creates new
// ones. One thread, started on first use (an idle server holds none), woken
// by its condition variable to stop at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace abx::plugins::agents {

class RetentionTimer {
 public:
  RetentionTimer(std::chrono::milliseconds interval, std::function<void()> tick);
  ~RetentionTimer() { stop(); }
  RetentionTimer(const RetentionTimer&) = delete;
  RetentionTimer& operator=(const RetentionTimer&) = delete;

  /** Starts the thread unless it runs or was stopped. */
  void start();
  /** Stops and joins the thread (a tick under way finishes first). Idempotent. */
  void stop();

 private:
  void loop();

  const std::chrono::milliseconds interval_;
  const std::function<void()> tick_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

/** How often retention runs for a TTL of @p session_ttl_s: a quarter of it,
 *  between 250 ms and 60 s, so a session outlives its TTL by little. */
std::chrono::milliseconds retentionInterval(std::int64_t session_ttl_s);

}  // namespace abx::plugins::agents
