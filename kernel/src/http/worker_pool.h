// WorkerPool: the threads that run requests the event loop parsed. Threads
// start on demand up to a maximum and stay; the queue is bounded, so a
// server that cannot keep up says so (the loop answers 503) instead of
// holding unbounded work. A thread takes the pool's name and the niceness
// of the thread that built the pool, not of the one that started it: the
// event loop starts them and runs raised, and that boost must not pass to
// the requests' work or the children they spawn.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace abx::kernel {

class WorkerPool {
 public:
  /** @p thread_name: at most 15 characters (the kernel's limit). */
  WorkerPool(std::size_t max_threads, std::size_t max_queued, const char* thread_name);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /** Queues @p task; false when the queue is full or the pool stopped. */
  bool post(std::function<void()> task);
  /** Runs what is queued, then joins every thread. */
  void stop();
  std::size_t threads() const;

 private:
  void run();

  const std::size_t max_threads_;
  const std::size_t max_queued_;
  const char* const thread_name_;
  const int nice_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace abx::kernel
