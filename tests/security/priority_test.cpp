// The event loop runs at a raised priority (nice −5) when the server may
// raise it. That boost is the loop's alone: a caller's commands, the
// workers that run them and every other thread keep the niceness the
// server was started with, so no remote caller gets CPU priority the rest
// of the sandbox does not have.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "security/security_support.h"

namespace abx::testing::security {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

const std::string kToken = "priority-token-5d1c02";
const Headers kAuth = {{"X-Access-Token", kToken}};

std::string commandBody(const std::string& script) {
  return R"({"command":["/bin/sh","-c",)" + sdk::jsonQuote(script) + "]}";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The 19th field of /proc/<pid>/task/<tid>/stat, after the command name.
int niceOf(const std::filesystem::path& stat_file) {
  const std::string stat = readFile(stat_file.string());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 19 && fields >> field; ++i) {
  }
  return std::stoi(field);
}

class SecurityPriority : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the loop's priority is raised only with CAP_SYS_NICE";
    errno = 0;
    own_nice_ = ::getpriority(PRIO_PROCESS, 0);
    server_.emplace(allPlugins({}, {{"ABX_SERVER_TOKEN", kToken}}));
  }

  std::string expected() const { return std::to_string(own_nice_) + "\n"; }

  int own_nice_ = 0;
  std::optional<ServerProcess> server_;
};

TEST_F(SecurityPriority, ACallersCommandsRunAtTheServersNiceness) {
  const auto shell = http(server_->port(), "POST", "/shell", commandBody("nice"), kAuth);
  ASSERT_EQ(shell.status, 200) << shell.body;
  EXPECT_THAT(shell.body, HasSubstr(R"("stdout":")" + std::to_string(own_nice_) + R"(\n")"));

  const auto stream = http(server_->port(), "POST", "/shell/stream", commandBody("nice"), kAuth);
  ASSERT_EQ(stream.status, 200) << stream.body;
  EXPECT_THAT(stream.body, HasSubstr(R"(data: {"data":")" + std::to_string(own_nice_) + R"("})"));

  const auto started = http(server_->port(), "POST", "/process/start",
                            commandBody("nice > background-nice.txt"), kAuth);
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string file = server_->dir() + "/background-nice.txt";
  for (int i = 0; i < 100 && readFile(file).empty(); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(readFile(file), expected());
}

TEST_F(SecurityPriority, OnlyTheEventLoopThreadIsRaised) {
  // Enough requests at once that the pool starts several workers.
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i)
    callers.emplace_back(
        [&] { http(server_->port(), "POST", "/shell", commandBody("sleep 0.2"), kAuth); });
  for (auto& t : callers) t.join();
  // The shell streams' output pump is a thread started by a worker.
  ASSERT_EQ(http(server_->port(), "POST", "/shell/stream", commandBody("echo"), kAuth).status, 200);
  int loops = 0, stream_loops = 0, threads = 0;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(server_->pid()) + "/task")) {
    ++threads;
    const std::string name = readFile((task.path() / "comm").string());
    const int nice = niceOf(task.path() / "stat");
    if (name == "abx-http-loop\n") {
      ++loops;
      EXPECT_EQ(nice, std::max(own_nice_ - 5, -20)) << "the loop's niceness";
    } else {
      // The stream loop too: its fan-out must not delay the connection loop.
      if (name == "abx-http-stream\n") ++stream_loops;
      EXPECT_EQ(nice, own_nice_) << "thread " << task.path().filename() << " " << name;
    }
  }
  EXPECT_EQ(loops, 1) << "of " << threads << " threads";
  EXPECT_EQ(stream_loops, 1) << "of " << threads << " threads";
  EXPECT_GT(threads, 4);
}

}  // namespace
}  // namespace abx::testing::security
