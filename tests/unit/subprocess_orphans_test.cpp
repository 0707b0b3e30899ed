// Subprocess::reapOrphans(): it reaps the children no Subprocess owns and
// never one that a Subprocess owns, even while children start and exit on
// other threads.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "abx/sdk/subprocess.h"

namespace {

using abx::sdk::SpawnOptions;
using abx::sdk::Subprocess;
using abx::sdk::TerminalSize;
using namespace std::chrono_literals;

SpawnOptions shell(const std::string& script) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = {"PATH=/usr/bin:/bin"};
  return o;
}

/** Waits until @p pid (a child) has exited, without reaping it. */
bool exitedUnreaped(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
      return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

/** A child no Subprocess owns, already exited with @p code. */
pid_t strayChild(int code) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(code);
  return pid;
}

TEST(SubprocessOrphans, ExitedOwnedChildrenAreLeftToTheirOwners) {
  std::vector<Subprocess> owned;
  for (int code = 1; code <= 10; ++code) {
    auto p = Subprocess::spawn(shell("exit " + std::to_string(code)));
    ASSERT_TRUE(p.isOk()) << p.status().message();
    owned.push_back(std::move(p).value());
  }
  // A terminal child starts with fork + exec rather than posix_spawn.
  SpawnOptions on_terminal = shell("exit 42");
  on_terminal.terminal = TerminalSize{};
  auto terminal = Subprocess::spawn(on_terminal);
  ASSERT_TRUE(terminal.isOk()) << terminal.status().message();
  owned.push_back(std::move(terminal).value());
  for (auto& p : owned) ASSERT_TRUE(exitedUnreaped(p.pid()));

  EXPECT_EQ(Subprocess::reapOrphans(), std::optional<std::size_t>(0));
  for (int code = 1; code <= 10; ++code)
    EXPECT_EQ(owned[static_cast<std::size_t>(code - 1)].wait(), code);
  EXPECT_EQ(owned.back().wait(), 42);
}

TEST(SubprocessOrphans, ChildrenNoSubprocessOwnsAreReaped) {
  // The owned child exited first, so waitid(P_ALL) names it and the reaper
  // has to look past it at every child.
  auto owner = Subprocess::spawn(shell("exit 3"));
  ASSERT_TRUE(owner.isOk()) << owner.status().message();
  ASSERT_TRUE(exitedUnreaped(owner.value().pid()));
  const pid_t first = strayChild(7);
  const pid_t second = strayChild(8);
  ASSERT_TRUE(exitedUnreaped(first));
  ASSERT_TRUE(exitedUnreaped(second));

  EXPECT_EQ(Subprocess::reapOrphans(), std::optional<std::size_t>(2));
  int status = 0;
  EXPECT_EQ(::waitpid(first, &status, WNOHANG), -1);
  EXPECT_EQ(::waitpid(second, &status, WNOHANG), -1);
  EXPECT_EQ(owner.value().wait(), 3);
  EXPECT_EQ(Subprocess::reapOrphans(), std::optional<std::size_t>(0));
}

TEST(SubprocessOrphans, NoExitCodeIsLostToAReaperRunningAlongside) {
  std::atomic<bool> done{false};
  std::atomic<std::size_t> reaped{0};
  std::thread reaper([&] {
    while (!done) {
      if (auto n = Subprocess::reapOrphans()) reaped += *n;
      std::this_thread::yield();
    }
  });
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::vector<std::thread> spawners;
  for (int t = 0; t < kThreads; ++t) {
    spawners.emplace_back([t] {
      for (int i = 0; i < kRounds; ++i) {
        const int code = (t * kRounds + i) % 200 + 1;
        if (i % 2 == 0) {
          auto ran = Subprocess::run(shell("exit " + std::to_string(code)));
          ASSERT_TRUE(ran.isOk()) << ran.status().message();
          EXPECT_EQ(ran.value().exit_code, code);
        } else {
          // Exits before its owner looks: the zombie waits for wait().
          auto p = Subprocess::spawn(shell("exit " + std::to_string(code)));
          ASSERT_TRUE(p.isOk()) << p.status().message();
          std::this_thread::sleep_for(1ms);
          EXPECT_EQ(p.value().wait(), code);
        }
      }
    });
  }
  // Strays exit meanwhile: the reaper has work while the owners wait.
  std::vector<pid_t> strays;
  for (int i = 0; i < 20; ++i) {
    strays.push_back(strayChild(9));
    std::this_thread::sleep_for(2ms);
  }
  for (auto& s : spawners) s.join();
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (reaped < strays.size() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  done = true;
  reaper.join();
  EXPECT_EQ(reaped.load(), strays.size());
}

}  // namespace
