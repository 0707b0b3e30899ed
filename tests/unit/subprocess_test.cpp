// Subprocess tests: real children (sh, env, cat, yes, sleep) checked for the
// environment they get, how their output is split, how they are signalled and
// reaped, and what run() collects under its limits.
#include "abx/sdk/subprocess.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/proc_file.h"

namespace {

using abx::sdk::Completed;
using abx::sdk::KillLadder;
using abx::sdk::OutputLine;
using abx::sdk::OutputStream;
using abx::sdk::RunLimits;
using abx::sdk::SpawnOptions;
using abx::sdk::Subprocess;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin"};
const KillLadder kShortLadder{100ms, 100ms};

SpawnOptions shell(const std::string& script) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = kEnv;
  return o;
}

Completed mustRun(const SpawnOptions& options, const RunLimits& limits = {}) {
  auto done = Subprocess::run(options, limits);
  EXPECT_TRUE(done.isOk()) << (done.isOk() ? "" : done.status().message());
  return done.isOk() ? done.value() : Completed{};
}

std::vector<OutputLine> readAllLines(Subprocess& p, std::size_t max_line = 1u << 20) {
  std::vector<OutputLine> lines;
  const auto deadline = Clock::now() + 5s;
  while (!p.outputDone() && Clock::now() < deadline) {
    if (auto line = p.readLine(1s, max_line)) lines.push_back(*line);
  }
  EXPECT_TRUE(p.outputDone());
  return lines;
}

// A zombie (reparented to an init that has not reaped it yet) counts as gone.
bool processAlive(pid_t pid) {
  const std::string text = abx::testing::procStatText(pid);
  const auto paren = text.rfind(')');
  if (text.empty() || paren == std::string::npos || paren + 2 >= text.size()) return false;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

bool waitGone(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (processAlive(pid)) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/abx_subprocess_test_XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

long msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

TEST(Subprocess, EnvironmentIsExactlyTheGivenOne) {
  SpawnOptions o;
  o.argv = {"/usr/bin/env"};
  o.env = {"A=1", "B=two words"};
  const Completed done = mustRun(o);
  EXPECT_EQ(done.exit_code, 0);
  EXPECT_EQ(done.out, "A=1\nB=two words\n");
  EXPECT_EQ(done.err, "");
}

TEST(Subprocess, InheritEnvCopiesListedNamesButNeverServerSecrets) {
  ::setenv("ABX_TEST_VISIBLE", "v=1", 1);
  ::setenv("ABX_SERVER_TOKEN", "secret", 1);
  ::unsetenv("ABX_TEST_MISSING");
  const auto env = Subprocess::inheritEnv(
      {"ABX_TEST_VISIBLE", "ABX_SERVER_TOKEN", "ABX_TEST_MISSING", "ABX_TEST_VISIBLE"});
  EXPECT_EQ(env, std::vector<std::string>{"ABX_TEST_VISIBLE=v=1"});
  ::unsetenv("ABX_TEST_VISIBLE");
  ::unsetenv("ABX_SERVER_TOKEN");
}

TEST(Subprocess, ProgramIsResolvedInTheChildsPath) {
  TempDir dir;
  const std::string tool = dir.path() + "/abx-test-tool";
  {
    std::ofstream f(tool);
    f << "#!/bin/sh\necho tool ran\n";
  }
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);

  SpawnOptions o;
  o.argv = {"abx-test-tool"};
  o.env = {"PATH=/nonexistent:" + dir.path()};
  EXPECT_EQ(mustRun(o).out, "tool ran\n");

  // `env` is on the server's PATH but not on the child's.
  o.argv = {"env"};
  o.env = {"PATH=" + dir.path()};
  auto missing = Subprocess::spawn(o);
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().type(), "FileNotFoundError");

  // No PATH at all: the default one, and the child still gets an empty env.
  o.env = {};
  const Completed done = mustRun(o);
  EXPECT_EQ(done.exit_code, 0);
  EXPECT_EQ(done.out, "");
}

TEST(Subprocess, MissingProgramIsFileNotFoundError) {
  SpawnOptions o;
  o.env = kEnv;
  o.argv = {"abx-no-such-program"};
  auto by_name = Subprocess::spawn(o);
  ASSERT_FALSE(by_name.isOk());
  EXPECT_EQ(by_name.status().type(), "FileNotFoundError");
  EXPECT_NE(by_name.status().message().find("abx-no-such-program"), std::string::npos);

  o.argv = {"/nonexistent/abx-prog"};
  auto by_path = Subprocess::spawn(o);
  ASSERT_FALSE(by_path.isOk());
  EXPECT_EQ(by_path.status().type(), "FileNotFoundError");

  o.argv = {};
  EXPECT_FALSE(Subprocess::spawn(o).isOk());
}

TEST(Subprocess, WorkingDirectoryIsCheckedAndApplied) {
  TempDir dir;
  SpawnOptions o;
  o.argv = {"pwd"};
  o.env = kEnv;

  o.cwd = dir.path() + "/missing";
  auto missing = Subprocess::spawn(o);
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().type(), "FileNotFoundError");
  EXPECT_NE(missing.status().message().find(o.cwd), std::string::npos);

  o.cwd = dir.path() + "/file";
  std::ofstream(o.cwd) << "x";
  auto not_dir = Subprocess::spawn(o);
  ASSERT_FALSE(not_dir.isOk());
  EXPECT_EQ(not_dir.status().type(), "NotADirectoryError");

  o.cwd = dir.path();
  const std::string real = std::filesystem::canonical(dir.path()).string();
  EXPECT_EQ(mustRun(o).out, real + "\n");
}

TEST(Subprocess, StdoutAndStderrAreSeparateStreams) {
  auto p = Subprocess::spawn(shell("echo out1; echo err1 >&2; echo out2; echo err2 >&2"));
  ASSERT_TRUE(p.isOk());
  std::vector<std::string> out, err;
  for (const OutputLine& line : readAllLines(*p)) {
    EXPECT_FALSE(line.partial);
    (line.stream == OutputStream::out ? out : err).push_back(line.text);
  }
  EXPECT_EQ(out, (std::vector<std::string>{"out1", "out2"}));
  EXPECT_EQ(err, (std::vector<std::string>{"err1", "err2"}));
  EXPECT_EQ(p->wait(), 0);
}

TEST(Subprocess, MergedStderrKeepsOneOrderedStream) {
  SpawnOptions o = shell("echo a; echo b >&2; echo c");
  o.merge_stderr = true;
  auto p = Subprocess::spawn(o);
  ASSERT_TRUE(p.isOk());
  std::vector<std::string> texts;
  for (const OutputLine& line : readAllLines(*p)) {
    EXPECT_EQ(line.stream, OutputStream::out);
    texts.push_back(line.text);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"a", "b", "c"}));

  const Completed done = mustRun(o);
  EXPECT_EQ(done.out, "a\nb\nc\n");
  EXPECT_EQ(done.err, "");
}

TEST(Subprocess, UnterminatedLastLineIsPartial) {
  auto p = Subprocess::spawn(shell("printf 'x\\ny'"));
  ASSERT_TRUE(p.isOk());
  const auto lines = readAllLines(*p);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "x");
  EXPECT_FALSE(lines[0].partial);
  EXPECT_EQ(lines[1].text, "y");
  EXPECT_TRUE(lines[1].partial);
  EXPECT_FALSE(p->readLine(0ms).has_value());
  EXPECT_TRUE(p->outputDone());
}

TEST(Subprocess, LongLinesComeInPartsOfMaxLine) {
  auto p = Subprocess::spawn(shell("printf 'abcdefghij\\nwxyz\\nk\\n'"));
  ASSERT_TRUE(p.isOk());
  const auto lines = readAllLines(*p, 4);
  ASSERT_EQ(lines.size(), 5u);
  const std::pair<std::string, bool> expected[] = {
      {"abcd", true}, {"efgh", true}, {"ij", false}, {"wxyz", false}, {"k", false}};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].text, expected[i].first) << i;
    EXPECT_EQ(lines[i].partial, expected[i].second) << i;
  }
}

TEST(Subprocess, ReadChunkReturnsRawBytes) {
  auto p = Subprocess::spawn(shell("printf 'a\\0b'; printf 'e' >&2"));
  ASSERT_TRUE(p.isOk());
  std::string out, err;
  while (auto chunk = p->readChunk(2s)) {
    (chunk->stream == OutputStream::out ? out : err) += chunk->bytes;
  }
  EXPECT_TRUE(p->outputDone());
  EXPECT_EQ(out, std::string("a\0b", 3));
  EXPECT_EQ(err, "e");
}

TEST(Subprocess, ExitCodesFollowPythonsConvention) {
  EXPECT_EQ(mustRun(shell("exit 3")).exit_code, 3);
  EXPECT_EQ(mustRun(shell("kill -TERM $$")).exit_code, -SIGTERM);

  auto p = Subprocess::spawn(shell("exit 7"));
  ASSERT_TRUE(p.isOk());
  EXPECT_EQ(p->waitFor(5s), 7);
  EXPECT_EQ(p->poll(), 7);
  EXPECT_FALSE(p->signalGroup(SIGTERM));  // already reaped
}

TEST(Subprocess, PollAndReadLineDoNotBlock) {
  auto p = Subprocess::spawn(shell("sleep 5"));
  ASSERT_TRUE(p.isOk());
  EXPECT_FALSE(p->poll().has_value());
  const auto start = Clock::now();
  EXPECT_FALSE(p->readLine(50ms).has_value());
  EXPECT_FALSE(p->waitFor(50ms).has_value());
  EXPECT_GE(msSince(start), 95);
  EXPECT_LT(msSince(start), 1000);
  EXPECT_FALSE(p->outputDone());
}

TEST(Subprocess, DestructorKillsTheGroupAndReaps) {
  pid_t grandchild = -1;
  pid_t child = -1;
  const auto start = Clock::now();
  {
    auto p = Subprocess::spawn(shell("trap '' INT TERM; sleep 100 & echo $!; wait"));
    ASSERT_TRUE(p.isOk());
    child = p->pid();
    auto line = p->readLine(5s);
    ASSERT_TRUE(line.has_value());
    grandchild = std::stoi(line->text);
    ASSERT_TRUE(processAlive(grandchild));
  }
  EXPECT_LT(msSince(start), 2000);
  EXPECT_FALSE(processAlive(child));
  EXPECT_TRUE(waitGone(grandchild, 2s));
}

TEST(Subprocess, TerminateKillsGrandchildren) {
  auto p = Subprocess::spawn(shell("sleep 100 & echo $!; wait"));
  ASSERT_TRUE(p.isOk());
  auto line = p->readLine(5s);
  ASSERT_TRUE(line.has_value());
  const pid_t grandchild = std::stoi(line->text);
  ASSERT_TRUE(processAlive(grandchild));
  // The shell dies of SIGINT; its background sleep ignores SIGINT (POSIX
  // async lists do), so only the sweep after the leader's exit ends it.
  EXPECT_EQ(p->terminate(kShortLadder), -SIGINT);
  EXPECT_TRUE(waitGone(grandchild, 2s));
}

TEST(Subprocess, LadderEscalatesToSigkill) {
  auto p = Subprocess::spawn(shell("trap '' INT TERM; echo ready; sleep 100"));
  ASSERT_TRUE(p.isOk());
  auto ready = p->readLine(5s);
  ASSERT_TRUE(ready.has_value());
  ASSERT_EQ(ready->text, "ready");
  const auto start = Clock::now();
  EXPECT_EQ(p->terminate(kShortLadder), -SIGKILL);
  const long elapsed = msSince(start);
  EXPECT_GE(elapsed, 190);
  EXPECT_LT(elapsed, 1500);
}

TEST(Subprocess, LadderStopsAtSigintWhenThatSuffices) {
  auto p = Subprocess::spawn(shell("exec sleep 100"));
  ASSERT_TRUE(p.isOk());
  const auto start = Clock::now();
  EXPECT_EQ(p->terminate(KillLadder{5000ms, 5000ms}), -SIGINT);
  EXPECT_LT(msSince(start), 1000);
}

TEST(Subprocess, RunTimesOutAndRunsTheLadder) {
  RunLimits limits;
  limits.timeout = 200ms;
  limits.ladder = kShortLadder;
  const auto start = Clock::now();
  const Completed done = mustRun(shell("echo before; exec sleep 10"), limits);
  const long elapsed = msSince(start);
  EXPECT_TRUE(done.timed_out);
  EXPECT_FALSE(done.truncated);
  EXPECT_EQ(done.exit_code, -SIGINT);
  EXPECT_EQ(done.out, "before\n");
  EXPECT_GE(elapsed, 190);
  EXPECT_LT(elapsed, 1500);
}

TEST(Subprocess, RunCutsOutputAtTheLimit) {
  RunLimits limits;
  limits.max_output_bytes = 1000;
  limits.ladder = kShortLadder;
  SpawnOptions o;
  o.argv = {"yes"};
  o.env = kEnv;
  const auto start = Clock::now();
  const Completed done = mustRun(o, limits);
  EXPECT_TRUE(done.truncated);
  EXPECT_FALSE(done.timed_out);
  EXPECT_EQ(done.out.size(), 1000u);
  EXPECT_EQ(done.out.substr(0, 4), "y\ny\n");
  EXPECT_LT(done.exit_code, 0);
  EXPECT_LT(msSince(start), 1500);
}

TEST(Subprocess, RunDoesNotWaitForBackgroundJobsOfAFinishedLeader) {
  RunLimits limits;
  limits.timeout = 5s;
  const auto start = Clock::now();
  const Completed done = mustRun(shell("sleep 100 & echo started"), limits);
  EXPECT_EQ(done.exit_code, 0);
  EXPECT_EQ(done.out, "started\n");
  EXPECT_FALSE(done.timed_out);
  EXPECT_LT(msSince(start), 2000);
}

std::string bigPayload(std::size_t size) {
  std::string data(size, '\0');
  for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<char>((i * 131 + i / 7) & 0xFF);
  return data;
}

TEST(Subprocess, RunFeedsLargeStdinWithoutDeadlock) {
  RunLimits limits;
  limits.stdin_data = bigPayload(3u << 20);  // far beyond both pipe buffers
  limits.timeout = 10s;
  SpawnOptions o;
  o.argv = {"cat"};
  o.env = kEnv;
  o.stdin_pipe = false;  // stdin_data implies a pipe
  const Completed done = mustRun(o, limits);
  EXPECT_EQ(done.exit_code, 0);
  EXPECT_FALSE(done.timed_out);
  EXPECT_FALSE(done.truncated);
  EXPECT_EQ(done.out.size(), limits.stdin_data.size());
  EXPECT_TRUE(done.out == limits.stdin_data);
}

TEST(Subprocess, WriteStdinFromASecondThreadWhileReading) {
  SpawnOptions o;
  o.argv = {"cat"};
  o.env = kEnv;
  auto p = Subprocess::spawn(o);
  ASSERT_TRUE(p.isOk());
  const std::string data = bigPayload((3u << 20) / 2);
  abx::sdk::Status written;
  std::thread writer([&] {
    written = p->writeStdin(data);
    p->closeStdin();
  });
  std::string out;
  while (auto chunk = p->readChunk(5s)) {
    EXPECT_EQ(chunk->stream, OutputStream::out);
    out += chunk->bytes;
  }
  writer.join();
  EXPECT_TRUE(written.isOk()) << written.message();
  EXPECT_TRUE(p->outputDone());
  EXPECT_EQ(out.size(), data.size());
  EXPECT_TRUE(out == data);
  EXPECT_EQ(p->wait(), 0);
  EXPECT_EQ(p->writeStdin("late").type(), "ValueError");
}

TEST(Subprocess, WriteToAChildThatExitedIsBrokenPipeNotSigpipe) {
  auto p = Subprocess::spawn(shell("exit 0"));
  ASSERT_TRUE(p.isOk());
  EXPECT_EQ(p->wait(), 0);
  const auto status = p->writeStdin(std::string(256 * 1024, 'x'));
  EXPECT_FALSE(status.isOk());
  EXPECT_EQ(status.type(), "BrokenPipeError");
  // Reaching here means SIGPIPE did not kill the test; none may stay pending either.
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0);
}

TEST(Subprocess, StdinIsDevNullWithoutAPipe) {
  SpawnOptions o;
  o.argv = {"cat"};
  o.env = kEnv;
  o.stdin_pipe = false;
  auto p = Subprocess::spawn(o);
  ASSERT_TRUE(p.isOk());
  EXPECT_EQ(p->waitFor(5s), 0);
  EXPECT_FALSE(p->writeStdin("x").isOk());
}

TEST(Subprocess, ChildGetsDefaultSignalsAnEmptyMaskAndNoStrayFds) {
  // Put the server-like state into this thread: SIGPIPE ignored, SIGUSR1
  // blocked, and an fd without CLOEXEC.
  struct sigaction ignore {
  }, old_pipe{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGPIPE, &ignore, &old_pipe), 0);
  sigset_t usr1, old_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &old_mask), 0);
  const int stray = ::open("/dev/null", O_RDONLY);  // deliberately no O_CLOEXEC
  ASSERT_GE(stray, 0);
  const int high = ::dup2(stray, 57);

  const Completed status = mustRun(shell("grep -E '^Sig(Blk|Ign):' /proc/self/status"));
  SpawnOptions ls;
  ls.argv = {"ls", "/proc/self/fd"};
  ls.env = kEnv;
  const Completed fds = mustRun(ls);

  ::close(high);
  ::close(stray);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGPIPE, &old_pipe, nullptr);

  EXPECT_EQ(status.out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
  // ls's own directory fd is 3.
  EXPECT_EQ(fds.out, "0\n1\n2\n3\n");
}

TEST(Subprocess, MoveTransfersOwnership) {
  auto spawned = Subprocess::spawn(shell("echo moved"));
  ASSERT_TRUE(spawned.isOk());
  Subprocess a = std::move(spawned.value());
  const pid_t pid = a.pid();
  Subprocess b = std::move(a);
  EXPECT_EQ(a.pid(), -1);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(b.pid(), pid);
  auto line = b.readLine(5s);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->text, "moved");

  auto other = Subprocess::spawn(shell("exec sleep 100"));
  ASSERT_TRUE(other.isOk());
  const pid_t sleeper = other->pid();
  b = std::move(other.value());  // kills and reaps the echo child (already done)
  EXPECT_EQ(b.pid(), sleeper);
  b = std::move(spawned.value());  // the sleeper is killed by the assignment
  EXPECT_FALSE(processAlive(sleeper));
}

}  // namespace
