// ThreadGate: counts the detached worker threads of the process table, so
// shutdown can wait for them (bounded) without joining threads that may hold
// the last reference to what they work on.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace abx::plugins::process {

/** THREAD: safe. */
class ThreadGate {
 public:
  void enter() {
    std::lock_guard lock(mutex_);
    ++live_;
  }
  void leave() {
    std::lock_guard lock(mutex_);
    if (--live_ == 0) idle_.notify_all();
  }
  /** @return true when no thread is left within @p timeout. */
  bool waitIdle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return idle_.wait_for(lock, timeout, [&] { return live_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable idle_;
  int live_ = 0;
};

}  // namespace abx::plugins::process
