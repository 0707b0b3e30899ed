// PtyProcess: the shell gets the slave as its controlling terminal (through
// Subprocess's terminal spawn), sized as asked; signals reach its group and
// the foreground job; terminate() and the destructor leave no child.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>

#include "pty_test_support.h"

namespace abx::plugins::terminal {
namespace {

using testing::readAll;
using testing::spawnOrDie;

TEST(PtyProcess, ChildHasTheTerminalAsControllingTerminalAndItsSize) {
  auto p = spawnOrDie({"/bin/sh", "-c",
                       "stty size; : </dev/tty && echo ctty-ok; "
                       "ps -o stat= -p $$; echo env=$FOO"},
                      100, 30, {"PATH=/usr/bin:/bin", "FOO=bar"});
  const std::string out = readAll(*p);
  EXPECT_NE(out.find("30 100"), std::string::npos) << out;
  EXPECT_NE(out.find("ctty-ok"), std::string::npos) << out;
  // "s" = session leader, "+" = in the terminal's foreground group.
  EXPECT_NE(out.find("s+"), std::string::npos) << out;
  EXPECT_NE(out.find("env=bar"), std::string::npos) << out;
  EXPECT_EQ(p->waitFor(std::chrono::seconds(5)), 0);
}

TEST(PtyProcess, OwnSessionAndProcessGroup) {
  auto p = spawnOrDie({"/bin/sleep", "30"});
  EXPECT_EQ(::getsid(p->pid()), p->pid());
  EXPECT_EQ(::getpgid(p->pid()), p->pid());
  EXPECT_EQ(::tcgetpgrp(p->masterFd()), p->pid());
}

TEST(PtyProcess, ResizeIsSeenByTheChild) {
  auto p = spawnOrDie({"/bin/sh", "-c", "read line; stty size"});
  ASSERT_TRUE(p->resize(120, 40));
  ASSERT_EQ(::write(p->masterFd(), "go\n", 3), 3);
  EXPECT_NE(readAll(*p).find("40 120"), std::string::npos);
}

TEST(PtyProcess, SignalReachesTheGroupAndExitCodeFollowsPython) {
  auto p = spawnOrDie({"/bin/sleep", "30"});
  EXPECT_FALSE(p->poll());
  EXPECT_TRUE(p->signal(SIGTERM));
  EXPECT_EQ(p->waitFor(std::chrono::seconds(5)), -SIGTERM);
  EXPECT_FALSE(p->signal(SIGTERM));  // reaped: nothing to signal
}

TEST(PtyProcess, SigintReachesTheForegroundJobOfAnInteractiveShell) {
  if (::access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no bash";
  auto p = spawnOrDie({"/bin/bash", "--norc", "--noprofile", "-i"}, 80, 24,
                      {"PATH=/usr/bin:/bin", "PS1=$ "});
  const std::string cmd = "sleep 30; echo after-$((40+2))\n";
  ASSERT_EQ(::write(p->masterFd(), cmd.data(), cmd.size()), static_cast<ssize_t>(cmd.size()));
  // Wait until sleep runs (exec'd) as the terminal's foreground group: an
  // interrupt before the exec would meet bash's handler in the child, just
  // as a too-early Ctrl-C would.
  auto sleeping = [&] {
    const pid_t fg = ::tcgetpgrp(p->masterFd());
    if (fg <= 0 || fg == p->pid()) return false;
    std::ifstream comm("/proc/" + std::to_string(fg) + "/comm");
    std::string name;
    std::getline(comm, name);
    return name == "sleep";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!sleeping() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(sleeping());
  EXPECT_TRUE(p->signal(SIGINT));
  // Like Ctrl-C, the interrupt ends the whole list (no "after-42"); `exit`
  // then reports sleep's status, 128 + SIGINT, long before 30 s.
  ASSERT_EQ(::write(p->masterFd(), "exit\n", 5), 5);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(p->waitFor(std::chrono::seconds(10)), 128 + SIGINT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(PtyProcess, TerminateHangsUpThenKills) {
  auto p = spawnOrDie({"/bin/sleep", "30"});
  EXPECT_EQ(p->terminate(std::chrono::milliseconds(500)), -SIGHUP);
  // A child that ignores the hang-up is killed after the grace.
  auto stubborn = spawnOrDie({"/bin/sh", "-c", "trap '' HUP; sleep 30"});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(stubborn->terminate(std::chrono::milliseconds(200)), -SIGKILL);
}

TEST(PtyProcess, DestructorKillsAndReaps) {
  pid_t pid;
  {
    auto p = spawnOrDie({"/bin/sleep", "30"});
    pid = p->pid();
  }
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);  // already reaped: not our child any more
  EXPECT_EQ(errno, ECHILD);
}

TEST(PtyProcess, SpawnFailures) {
  sdk::SpawnOptions o;
  o.argv = {"/nonexistent/shell"};
  auto missing = PtyProcess::spawn(o);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().type(), "FileNotFoundError");
  o.argv = {"relative-shell"};
  EXPECT_FALSE(PtyProcess::spawn(o));
}

TEST(PtyProcess, ResolveExecutableUsesTheChildPath) {
  EXPECT_EQ(resolveExecutable("sh", {"PATH=/nonexistent:/bin"}), "/bin/sh");
  EXPECT_EQ(resolveExecutable("/bin/sh", {}), "/bin/sh");
  EXPECT_FALSE(resolveExecutable("sh", {"PATH=/nonexistent"}));
  EXPECT_FALSE(resolveExecutable("bin/sh", {}));
  EXPECT_FALSE(resolveExecutable("/etc/passwd", {}));
  EXPECT_FALSE(resolveExecutable("", {}));
}

}  // namespace
}  // namespace abx::plugins::terminal
