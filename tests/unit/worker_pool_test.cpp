// WorkerPool: tasks run on at most max threads, started only when needed;
// the queue is bounded; stop() runs what was queued and joins.
#include "http/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

namespace abx::kernel {
namespace {

TEST(WorkerPool, RunsTasksOnDemandThreads) {
  WorkerPool pool(4, 100);
  EXPECT_EQ(pool.threads(), 0u);
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(pool.post([&] { ++ran; }));
  pool.stop();
  EXPECT_EQ(ran.load(), 20);
}

TEST(WorkerPool, NeverMoreThreadsThanTheMaximum) {
  WorkerPool pool(2, 100);
  std::promise<void> release;
  auto gate = release.get_future().share();
  for (int i = 0; i < 10; ++i) pool.post([gate] { gate.wait(); });
  EXPECT_LE(pool.threads(), 2u);
  release.set_value();
  pool.stop();
}

TEST(WorkerPool, TheQueueIsBounded) {
  WorkerPool pool(1, 2);
  std::promise<void> release;
  auto gate = release.get_future().share();
  std::promise<void> started;
  ASSERT_TRUE(pool.post([&] {
    started.set_value();
    gate.wait();
  }));
  started.get_future().wait();
  EXPECT_TRUE(pool.post([] {}));
  EXPECT_TRUE(pool.post([] {}));
  EXPECT_FALSE(pool.post([] {}));  // two queued behind the busy thread already
  release.set_value();
  pool.stop();
  EXPECT_FALSE(pool.post([] {}));  // stopped
}

}  // namespace
}  // namespace abx::kernel
