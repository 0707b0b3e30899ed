// Subprocess with ProcessLimits (SDK 2.3): the CPU limit is set in the child
// before its exec, so the child and every process it starts get it, and a
// busy child ends by SIGXCPU at its budget.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "abx/sdk/subprocess.h"

namespace {

using abx::sdk::ProcessLimits;
using abx::sdk::SpawnOptions;
using abx::sdk::Subprocess;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SpawnOptions script(const std::string& text) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", text};
  o.env = {"PATH=/usr/bin:/bin"};
  return o;
}

// Every stdout line until EOF (at most 5 s).
std::vector<std::string> stdoutOf(Subprocess& p) {
  std::vector<std::string> out;
  const auto deadline = Clock::now() + 5s;
  while (!p.outputDone() && Clock::now() < deadline)
    if (auto line = p.readLine(500ms)) out.push_back(line->text);
  return out;
}

TEST(SubprocessLimits, CpuSecondsIsSetBeforeExecAndInherited) {
  ProcessLimits limits;
  limits.cpu_seconds = 3;
  // The child and a grandchild each see soft 3, hard 3 + the kill grace.
  auto p = Subprocess::spawn(script("ulimit -St; ulimit -Ht; sh -c 'ulimit -St'"), limits);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  const std::vector<std::string> expected = {"3", std::to_string(3 + ProcessLimits::kCpuKillGrace),
                                             "3"};
  EXPECT_EQ(stdoutOf(*p), expected);
  EXPECT_EQ(p->wait(), 0);
}

TEST(SubprocessLimits, NoLimitLeavesTheServersOwn) {
  auto p = Subprocess::spawn(script("ulimit -t"), ProcessLimits{});
  ASSERT_TRUE(p.isOk());
  EXPECT_EQ(stdoutOf(*p), std::vector<std::string>{"unlimited"});
}

TEST(SubprocessLimits, ABusyChildEndsBySigxcpuAtItsBudget) {
  ProcessLimits limits;
  limits.cpu_seconds = 1;
  const auto start = Clock::now();
  auto p = Subprocess::spawn(script("while :; do :; done"), limits);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  auto code = p->waitFor(20s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, -SIGXCPU);
  EXPECT_GE(Clock::now() - start, 900ms);
}

}  // namespace
