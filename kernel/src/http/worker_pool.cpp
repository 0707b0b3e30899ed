#include "http/worker_pool.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace abx::kernel {

WorkerPool::WorkerPool(std::size_t max_threads, std::size_t max_queued, const char* thread_name)
    : max_threads_(max_threads ? max_threads : 1),
      max_queued_(max_queued),
      thread_name_(thread_name),
      nice_(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()))) {}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::post(std::function<void()> task) {
  std::lock_guard lock(mutex_);
  if (stopping_ || queue_.size() >= max_queued_) return false;
  queue_.push_back(std::move(task));
  // A new thread only when nobody is free to take it.
  if (idle_ < queue_.size() && threads_.size() < max_threads_)
    threads_.emplace_back([this] { run(); });
  else
    wake_.notify_one();
  return true;
}

void WorkerPool::run() {
  ::pthread_setname_np(::pthread_self(), thread_name_);
  // Lowering a thread's priority needs no privilege, so this cannot fail
  // where the raise that is undone succeeded.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice_);
  std::unique_lock lock(mutex_);
  while (true) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // stopping, nothing left
    auto task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

void WorkerPool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (auto& t : threads)
    if (t.joinable()) t.join();
}

std::size_t WorkerPool::threads() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

}  // namespace abx::kernel
