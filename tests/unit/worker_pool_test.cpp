// WorkerPool: tasks run on at most max threads, started only when needed;
// the queue is bounded; stop() runs what was queued and joins; a thread has
// the pool's name and the niceness of the thread that built the pool.
#include "http/worker_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace abx::kernel {
namespace {

TEST(WorkerPool, RunsTasksOnDemandThreads) {
  WorkerPool pool(4, 100, "test-pool");
  EXPECT_EQ(pool.threads(), 0u);
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(pool.post([&] { ++ran; }));
  pool.stop();
  EXPECT_EQ(ran.load(), 20);
}

TEST(WorkerPool, NeverMoreThreadsThanTheMaximum) {
  WorkerPool pool(2, 100, "test-pool");
  std::promise<void> release;
  auto gate = release.get_future().share();
  for (int i = 0; i < 10; ++i) pool.post([gate] { gate.wait(); });
  EXPECT_LE(pool.threads(), 2u);
  release.set_value();
  pool.stop();
}

TEST(WorkerPool, TheQueueIsBounded) {
  WorkerPool pool(1, 2, "test-pool");
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

int ownNice() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); }

// The event loop starts the workers while it runs raised; here the pool is
// built on a thread three steps nicer than the one that starts its
// threads (lowering a priority needs no privilege either way round).
TEST(WorkerPool, ThreadsTakeTheNicenessOfTheBuilderAndThePoolsName) {
  const int starter_nice = ownNice();
  std::unique_ptr<WorkerPool> pool;
  int builder_nice = 0;
  std::thread([&] {
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), starter_nice + 3);
    builder_nice = ownNice();
    pool = std::make_unique<WorkerPool>(1, 10, "test-pool");
  }).join();
  ASSERT_EQ(builder_nice, starter_nice + 3);
  std::promise<std::pair<int, std::string>> seen;
  ASSERT_TRUE(pool->post([&] {
    char name[16] = {};
    ::pthread_getname_np(::pthread_self(), name, sizeof name);
    seen.set_value({ownNice(), name});
  }));
  const auto [nice, name] = seen.get_future().get();
  EXPECT_EQ(nice, builder_nice);
  EXPECT_EQ(name, "test-pool");
  EXPECT_EQ(ownNice(), starter_nice);
  pool->stop();
}

}  // namespace
}  // namespace abx::kernel
