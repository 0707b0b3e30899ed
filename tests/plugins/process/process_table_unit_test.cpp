// ProcessTable and ManagedProcess without HTTP: the running cap, reaping,
// retention of exited records, signals, the output ring and stdin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include "process_owner.h"
#include "process_table.h"

namespace abx::plugins::process {
namespace {

using std::chrono::milliseconds;

sdk::SpawnOptions sh(const std::string& script) {
  sdk::SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
  return o;
}

std::shared_ptr<ManagedProcess> started(ProcessTable& table, const std::string& script,
                                        std::size_t ring = 1u << 20) {
  auto r = table.start(sh(script), script, "alice", ring);
  if (auto* refusal = std::get_if<sdk::HttpError>(&r)) {
    ADD_FAILURE() << refusal->message;
    return nullptr;
  }
  return std::get<std::shared_ptr<ManagedProcess>>(r);
}

template <class Pred>
bool eventually(Pred pred, milliseconds timeout = milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return pred();
}

TEST(ProcessTable, RunsReapsAndKeepsTheExitCode) {
  ProcessTable table;
  auto p = started(table, "echo hi; exit 4");
  ASSERT_TRUE(p);
  ASSERT_TRUE(eventually([&] { return p->output(0).eof; }));
  auto snap = p->snapshot();
  EXPECT_FALSE(snap.running);
  EXPECT_EQ(snap.exit_code, 4);
  EXPECT_EQ(snap.command, "echo hi; exit 4");
  EXPECT_EQ(snap.owner, "alice");
  EXPECT_EQ(p->owner(), "alice");
  EXPECT_GT(snap.started_at, 1.6e9);
  EXPECT_EQ(p->output(0).slice.bytes, "hi\n");
  EXPECT_EQ(table.find(p->pid()), p);
  EXPECT_EQ(table.find(999999999), nullptr);
  // Reaped: no child of ours is left to wait for.
  errno = 0;
  EXPECT_EQ(::waitpid(p->pid(), nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(ProcessTable, CapCountsRunningProcessesOnly) {
  TableOptions options;
  options.max_running = 3;
  ProcessTable table(options);
  std::vector<std::shared_ptr<ManagedProcess>> sleepers;
  for (int i = 0; i < 3; ++i) sleepers.push_back(started(table, "sleep 30"));
  auto refused = table.start(sh("true"), "true", "alice", 1024);
  ASSERT_TRUE(std::holds_alternative<sdk::HttpError>(refused));
  EXPECT_EQ(std::get<sdk::HttpError>(refused).status, 429);
  EXPECT_EQ(std::get<sdk::HttpError>(refused).type, "ResourceError");
  EXPECT_EQ(std::get<sdk::HttpError>(refused).message, "Too many background processes (limit 3)");
  EXPECT_EQ(sleepers[0]->signal(SIGKILL), SignalOutcome::sent);
  ASSERT_TRUE(eventually([&] { return !sleepers[0]->running(); }));
  EXPECT_EQ(sleepers[0]->snapshot().exit_code, -SIGKILL);
  EXPECT_EQ(sleepers[0]->signal(SIGTERM), SignalOutcome::exited);
  EXPECT_TRUE(started(table, "true"));
  EXPECT_GE(table.runningCount(), 2u);
  EXPECT_LE(table.runningCount(), 3u);
}

TEST(ProcessTable, KeepsOnlyTheNewestExitedRecords) {
  TableOptions options;
  options.max_exited = 3;
  ProcessTable table(options);
  std::vector<pid_t> pids;
  for (int i = 0; i < 6; ++i) {
    auto p = started(table, "exit " + std::to_string(i));
    ASSERT_TRUE(eventually([&] { return !p->running(); }));
    pids.push_back(p->pid());
  }
  auto list = table.list();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list.back().pid, pids.back());
  EXPECT_EQ(table.find(pids.front()), nullptr);
  for (std::size_t i = 1; i < list.size(); ++i) EXPECT_LT(list[i - 1].sequence, list[i].sequence);
}

TEST(ProcessTable, StdoutAndStderrMergeInOrder) {
  ProcessTable table;
  auto p = started(table, "echo one; echo two >&2; echo three");
  ASSERT_TRUE(eventually([&] { return p->output(0).eof; }));
  EXPECT_EQ(p->output(0).slice.bytes, "one\ntwo\nthree\n");
  EXPECT_EQ(p->output(4).slice.bytes, "two\nthree\n");
}

TEST(ProcessTable, TheRingKeepsTheNewestBytes) {
  ProcessTable table;
  auto p = started(table, "head -c 5000 /dev/zero | tr '\\0' a; printf END", 100);
  ASSERT_TRUE(eventually([&] { return p->output(0).eof; }));
  auto read = p->output(0);
  EXPECT_EQ(read.end, 5003u);
  EXPECT_EQ(read.slice.dropped, 4903u);
  EXPECT_EQ(read.slice.bytes.size(), 100u);
  EXPECT_TRUE(read.slice.bytes.ends_with("aEND"));
}

TEST(ProcessTable, StdinIsWrittenInOrderThenClosed) {
  ProcessTable table;
  auto p = started(table, "cat");
  EXPECT_EQ(p->writeStdin("hello ", false), StdinOutcome::accepted);
  EXPECT_EQ(p->writeStdin("world\n", true), StdinOutcome::accepted);
  EXPECT_EQ(p->writeStdin("late", false), StdinOutcome::closed);
  ASSERT_TRUE(eventually([&] { return p->output(0).eof; }));
  EXPECT_EQ(p->output(0).slice.bytes, "hello world\n");
  EXPECT_EQ(p->snapshot().exit_code, 0);
  EXPECT_EQ(p->writeStdin("x", false), StdinOutcome::exited);
}

TEST(ProcessTable, PendingStdinIsBounded) {
  ProcessTable table;
  auto p = started(table, "sleep 30");  // never reads
  // The pipe takes 64 KiB; the queue 1 MiB more.
  std::string chunk(256 * 1024, 'x');
  int accepted = 0;
  StdinOutcome last = StdinOutcome::accepted;
  for (int i = 0; i < 16 && last == StdinOutcome::accepted; ++i) {
    last = p->writeStdin(chunk, false);
    accepted += last == StdinOutcome::accepted;
  }
  EXPECT_EQ(last, StdinOutcome::full);
  EXPECT_LE(accepted, 5);
  p->signal(SIGKILL);
  ASSERT_TRUE(eventually([&] { return !p->running(); }));
}

TEST(ProcessTable, LifetimeLimitTerminates) {
  ProcessTable table;
  auto r = table.start(sh("sleep 30"), "sleep 30", "alice", 1024, milliseconds(200));
  auto p = std::get<std::shared_ptr<ManagedProcess>>(r);
  ASSERT_TRUE(eventually([&] { return !p->running(); }, milliseconds(3000)));
  EXPECT_EQ(p->snapshot().exit_code, -SIGTERM);
}

TEST(ProcessTable, ShutdownStopsEverythingAndRefusesNewStarts) {
  auto table = std::make_unique<ProcessTable>();
  auto a = started(*table, "sleep 30");
  auto b = started(*table, "trap '' INT TERM; echo ready; sleep 30");  // needs the SIGKILL
  ASSERT_TRUE(eventually([&] { return b->output(0).slice.bytes == "ready\n"; }));
  const auto t0 = std::chrono::steady_clock::now();
  table->shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_FALSE(a->running());
  EXPECT_FALSE(b->running());
  EXPECT_EQ(b->snapshot().exit_code, -SIGKILL);
  auto refused = table->start(sh("true"), "true", "alice", 1024);
  ASSERT_TRUE(std::holds_alternative<sdk::HttpError>(refused));
  EXPECT_EQ(std::get<sdk::HttpError>(refused).status, 503);
}

// Starts, lists, reads, signals and writes from several threads at once
// while processes come and go (meant for ThreadSanitizer as much as for
// the assertions).
TEST(ProcessTable, ConcurrentUseFromManyThreads) {
  TableOptions options;
  options.max_exited = 20;
  ProcessTable table(options);
  std::atomic<bool> done{false};
  std::atomic<int> started_count{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        auto r = table.start(sh("echo x"), "echo x", "alice", 64);
        if (std::holds_alternative<std::shared_ptr<ManagedProcess>>(r)) ++started_count;
      }
    });
  threads.emplace_back([&] {
    while (!done) {
      for (const auto& s : table.list()) {
        if (auto p = table.find(s.pid)) {
          (void)p->output(0);
          (void)p->signal(SIGCONT);
          (void)p->writeStdin("in\n", false);
        }
      }
    }
  });
  threads[0].join();
  threads[1].join();
  ASSERT_TRUE(eventually([&] { return table.runningCount() == 0; }, milliseconds(10000)));
  done = true;
  threads[2].join();
  EXPECT_EQ(started_count.load(), 200);
  EXPECT_LE(table.list().size(), 20u);
}

TEST(ProcessOwner, TheStarterOrAdminActsOnAProcess) {
  sdk::Identity alice{"alice", {"process:manage"}};
  sdk::Identity bob{"bob", {"process:manage", "agents:admin", "admin:x", "process:*"}};
  sdk::Identity root{"root", {"admin"}};
  sdk::Identity star{"legacy", {"*"}};
  EXPECT_TRUE(mayActOn(alice, "alice"));
  EXPECT_FALSE(mayActOn(bob, "alice"));  // no scope but `admin` itself crosses identities
  EXPECT_TRUE(mayActOn(root, "alice"));
  EXPECT_TRUE(mayActOn(star, "alice"));
  // A record without an owner is admin's only.
  EXPECT_FALSE(mayActOn(sdk::Identity{"", {"process:manage"}}, ""));
  EXPECT_TRUE(mayActOn(root, ""));
}

}  // namespace
}  // namespace abx::plugins::process
