// runCommand (POST /shell's engine): output, exit codes, the output cap that
// lets the command finish, the timeout's kill ladder, and a stray background
// job that would otherwise hold the pipes open until the timeout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "shell_runner.h"

namespace abx::plugins::process {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

sdk::SpawnOptions sh(const std::string& script) {
  sdk::SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
  o.stdin_pipe = false;
  return o;
}

TEST(CommandRunner, CollectsBothStreamsAndTheExitCode) {
  auto r = runCommand(sh("echo out; echo err >&2; exit 3"), {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->truncated);
  EXPECT_FALSE(r->timed_out);
}

TEST(CommandRunner, ASignalDeathIsNegative) {
  auto r = runCommand(sh("kill -TERM $$"), {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, -SIGTERM);
}

TEST(CommandRunner, MissingProgramIsFileNotFoundError) {
  sdk::SpawnOptions o = sh("");
  o.argv = {"no-such-program-xyz"};
  auto r = runCommand(o, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "FileNotFoundError");
}

TEST(CommandRunner, TheCapTruncatesButTheCommandFinishes) {
  CommandLimits limits;
  limits.max_output_bytes = 1000;
  // 200 KB of output, then a marker file proves the command ran to its end.
  auto r = runCommand(sh("head -c 200000 /dev/zero | tr '\\0' x; echo done >&2; exit 7"), limits);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->out.size() + r->err.size(), 1000u);
  EXPECT_EQ(r->exit_code, 7);  // not killed by the cap
  EXPECT_FALSE(r->timed_out);
}

TEST(CommandRunner, TheCapNeverSplitsAUtf8Character) {
  CommandLimits limits;
  limits.max_output_bytes = 4;
  auto r = runCommand(sh("printf 'ab\\342\\202\\254cd'"), limits);  // "ab€cd"
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->out, "ab");
}

TEST(CommandRunner, TimeoutRunsTheLadder) {
  CommandLimits limits;
  limits.timeout = milliseconds(300);
  limits.ladder = {milliseconds(100), milliseconds(100)};
  const auto t0 = Clock::now();
  auto r = runCommand(sh("echo started; sleep 30"), limits);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->out, "started\n");
  EXPECT_LT(r->exit_code, 0);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3));
}

TEST(CommandRunner, AStrayBackgroundJobDoesNotHoldTheCall) {
  CommandLimits limits;
  limits.timeout = std::chrono::seconds(10);
  const auto t0 = Clock::now();
  auto r = runCommand(sh("sleep 30 & echo leader-done"), limits);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->out, "leader-done\n");
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
}

TEST(CommandRunner, ABackgroundJobWithItsOwnOutputKeepsRunning) {
  // `cmd > log 2>&1 &` does not hold the pipes, so nothing waits for it or kills it.
  CommandLimits limits;
  const auto t0 = Clock::now();
  auto r = runCommand(sh("sleep 5 > /dev/null 2>&1 & echo $!"), limits);
  ASSERT_TRUE(r);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  const pid_t job = std::stoi(r->out);
  EXPECT_EQ(::kill(job, 0), 0) << "the background job was killed";
  ::kill(job, SIGKILL);
}

}  // namespace
}  // namespace abx::plugins::process
