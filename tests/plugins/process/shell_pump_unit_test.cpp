// ShellPump with StreamJob: one named thread drives real commands to their
// end through their feeds — the events and the exit, a flood held at the
// feed's bound and let go as it is taken, a client that leaves (its group
// killed by the ladder), and the stop that ends every stream.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "abx/sdk/testing/fakes.h"
#include "shell_pump.h"
#include "support/proc_file.h"

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string frame(const std::string& name, const std::string& data) {
  std::string out;
  sdk::appendSseFrame(out, name, data);
  return out;
}

bool alive(pid_t pid) {
  const std::string text = abx::testing::procStatText(pid);
  const auto paren = text.rfind(')');
  return paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] != 'Z';
}

template <class Pred>
bool eventually(Pred pred, milliseconds timeout = milliseconds(5000)) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return pred();
}

bool pumpThreadRuns() {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    if (abx::testing::readProcFile(task.path() / "comm") == "abx-shell-pump\n") return true;
  }
  return false;
}

class ShellPumpTest : public ::testing::Test {
 protected:
  std::shared_ptr<ShellFeed> start(const std::string& script, std::size_t queue_bytes = 1 << 20,
                                   milliseconds timeout = milliseconds(30000)) {
    EXPECT_FALSE(pump_.ready().has_value());
    sdk::SpawnOptions spawn;
    spawn.argv = {"/bin/sh", "-c", script};
    spawn.env = {"PATH=/usr/bin:/bin"};
    spawn.stdin_pipe = false;
    auto child = sdk::Subprocess::spawn(spawn);
    EXPECT_TRUE(child) << child.status().message();
    settings_.queue_bytes = queue_bytes;
    const auto id = pump_.nextId();
    auto feed = std::make_shared<ShellFeed>(queue_bytes, pump_.poker(id));
    pump_.add(id, std::make_unique<StreamJob>(std::move(*child), feed, settings_,
                                              StreamLimits{Clock::now() + timeout, timeout, {}}));
    return feed;
  }

  StreamSettings settings_;
  ShellPump pump_;
};

TEST_F(ShellPumpTest, DrivesACommandToItsExitOnANamedThread) {
  auto feed = start("echo a; echo b >&2; exit 3");
  EXPECT_TRUE(pumpThreadRuns());
  sdk::testing::RecordingStream stream;
  feed->serve(stream, milliseconds(100));
  EXPECT_EQ(stream.received(), frame("stdout", R"({"data":"a"})") +
                                   frame("stderr", R"({"data":"b"})") +
                                   frame("exit", R"({"exit_code":3})"));
}

TEST_F(ShellPumpTest, ATimeoutSendsTheErrorThenTheExit) {
  auto feed = start("echo up; sleep 30", 1 << 20, milliseconds(200));
  sdk::testing::RecordingStream stream;
  const auto t0 = Clock::now();
  feed->serve(stream, milliseconds(100));
  EXPECT_LT(Clock::now() - t0, milliseconds(3000));
  const std::string head =
      frame("stdout", R"({"data":"up"})") +
      frame("error", R"({"error":"Command timed out after 0.2 seconds","type":"TimeoutError"})");
  const std::string text = stream.received();
  ASSERT_TRUE(text.starts_with(head)) << text;
  // The killed command's code is its signal's, negative.
  EXPECT_TRUE(text.substr(head.size()).starts_with("event: exit\ndata: {\"exit_code\":-")) << text;
}

TEST_F(ShellPumpTest, HoldsAFloodAtTheFeedsBoundAndLetsItGoAsItIsTaken) {
  constexpr std::size_t kBound = 64 * 1024;
  auto feed = start("echo $$; exec yes flood", kBound);
  std::string out;
  ASSERT_TRUE(eventually([&] {
    feed->pull(out, 64);
    return out.find("\n\n") != std::string::npos;
  }));
  const pid_t pid = std::stoi(out.substr(out.find("data\":\"") + 7));
  ASSERT_TRUE(eventually([&] { return feed->holdsProducer(); }));
  std::this_thread::sleep_for(milliseconds(200));
  out.clear();
  feed->pull(out, 1u << 30);
  // The bound, plus what one read of the pipes queued at once.
  EXPECT_GE(out.size(), kBound / 2);
  EXPECT_LT(out.size(), kBound + 64 * 1024);
  EXPECT_TRUE(alive(pid));

  out.clear();
  EXPECT_TRUE(eventually([&] {
    feed->pull(out, 1u << 30);
    return out.size() > 4 * kBound;
  })) << "taken text lets the command write again";

  feed->closed();
  EXPECT_TRUE(eventually([&] { return !alive(pid); }, milliseconds(2000)));
}

TEST_F(ShellPumpTest, StopEndsEveryStreamAndItsCommand) {
  auto feed = start("echo $$; sleep 30");
  std::string out;
  ASSERT_TRUE(eventually([&] {
    feed->pull(out, 64);
    return out.find("\n\n") != std::string::npos;
  }));
  const pid_t pid = std::stoi(out.substr(out.find("data\":\"") + 7));
  const auto t0 = Clock::now();
  pump_.stop();  // the disconnect ladder, at most 1.5 s, then SIGKILL
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
  // Generous for a loaded CI machine: the bound is the 1.5 s grace, not speed.
  EXPECT_LT(took, milliseconds(5000)) << took.count() << " ms";
  EXPECT_FALSE(alive(pid)) << "pid " << pid << ": " << abx::testing::procStatText(pid);
  EXPECT_FALSE(pumpThreadRuns());
  out.clear();
  const auto pulled = feed->pull(out, 1024);
  EXPECT_EQ(pulled, sdk::SseFeed::Pull::end) << static_cast<int>(pulled) << " " << out;
  EXPECT_TRUE(out.empty()) << out;
  ASSERT_TRUE(pump_.ready().has_value());
  EXPECT_EQ(pump_.ready()->status, 503);
}

}  // namespace
}  // namespace abx::plugins::process
