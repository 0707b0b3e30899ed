// Subprocess with SpawnOptions::terminal: the child leads its own session
// with the pseudo-terminal's slave as controlling terminal on 0-2, at the
// size asked; resizeTerminal reaches it; the exit status is collected like
// any child's; what does not apply to a terminal is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "abx/sdk/subprocess.h"
#include "support/terminal_output.h"

namespace {

using abx::sdk::SpawnOptions;
using abx::sdk::Subprocess;
using abx::sdk::TerminalSize;
using ::testing::HasSubstr;
using ::testing::Not;

SpawnOptions onTerminal(const std::string& script, TerminalSize size = {}) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = {"PATH=/usr/bin:/bin"};
  o.terminal = size;
  return o;
}

Subprocess spawnOrDie(const SpawnOptions& options) {
  auto p = Subprocess::spawn(options);
  if (!p) throw std::runtime_error(p.status().message());
  return std::move(p).value();
}

std::string readTerminal(Subprocess& p) { return abx::testing::readTerminalOutput(p.terminalFd()); }

TEST(SubprocessTerminal, TheChildSeesATtyOfTheAskedSizeOnItsStdio) {
  auto p =
      spawnOrDie(onTerminal("tty; stty size; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-ttys; "
                            ": </dev/tty && echo ctty-ok; stty -a | grep -o -- '-\\?iutf8'",
                            {30, 100}));
  ASSERT_GE(p.terminalFd(), 0);
  const std::string out = readTerminal(p);
  EXPECT_THAT(out, HasSubstr("/dev/pts/"));
  EXPECT_THAT(out, HasSubstr("30 100"));
  EXPECT_THAT(out, HasSubstr("all-ttys"));
  EXPECT_THAT(out, HasSubstr("ctty-ok"));
  EXPECT_THAT(out, HasSubstr("iutf8"));
  EXPECT_THAT(out, Not(HasSubstr("-iutf8")));
  EXPECT_EQ(p.wait(), 0);
}

TEST(SubprocessTerminal, TheChildLeadsItsSessionAndTheTerminalsForegroundGroup) {
  auto p = spawnOrDie(onTerminal("exec sleep 30"));
  EXPECT_EQ(::getsid(p.pid()), p.pid());
  EXPECT_EQ(::getpgid(p.pid()), p.pid());
  EXPECT_EQ(::tcgetpgrp(p.terminalFd()), p.pid());
  EXPECT_EQ(::tcgetsid(p.terminalFd()), p.pid());
  EXPECT_EQ(p.terminate({std::chrono::milliseconds(500), std::chrono::milliseconds(500)}), -SIGINT);
}

TEST(SubprocessTerminal, ResizeReachesTheChild) {
  auto p = spawnOrDie(onTerminal("stty size; read line; stty size"));
  ASSERT_TRUE(p.resizeTerminal(40, 120).isOk());
  ASSERT_EQ(::write(p.terminalFd(), "go\n", 3), 3);
  const std::string out = readTerminal(p);
  EXPECT_THAT(out, HasSubstr("40 120"));
  EXPECT_EQ(p.wait(), 0);
  EXPECT_EQ(p.resizeTerminal(0, 80).type(), "ValueError");
}

TEST(SubprocessTerminal, TheExitStatusIsCollected) {
  auto p = spawnOrDie(onTerminal("exit 7"));
  EXPECT_EQ(p.waitFor(std::chrono::seconds(10)), 7);
  auto killed = spawnOrDie(onTerminal("kill -TERM $$"));
  EXPECT_EQ(killed.wait(), -SIGTERM);
}

TEST(SubprocessTerminal, ATerminalChildHasNoPipesAndAPipedOneNoTerminal) {
  auto p = spawnOrDie(onTerminal("exec sleep 30"));
  EXPECT_FALSE(p.writeStdin("x").isOk());
  EXPECT_FALSE(p.readChunk(std::chrono::milliseconds(0)));
  EXPECT_TRUE(p.outputDone());
  SpawnOptions piped;
  piped.argv = {"/bin/true"};
  auto q = spawnOrDie(piped);
  EXPECT_EQ(q.terminalFd(), -1);
  EXPECT_EQ(q.resizeTerminal(24, 80).type(), "ValueError");
  EXPECT_EQ(q.wait(), 0);
}

TEST(SubprocessTerminal, RunRefusesATerminalAndMissingProgramsAreReported) {
  auto run = Subprocess::run(onTerminal("true"));
  ASSERT_FALSE(run);
  EXPECT_EQ(run.status().type(), "ValueError");
  SpawnOptions missing = onTerminal("");
  missing.argv = {"/nonexistent/shell"};
  auto spawned = Subprocess::spawn(missing);
  ASSERT_FALSE(spawned);
  EXPECT_EQ(spawned.status().type(), "FileNotFoundError");
}

}  // namespace
