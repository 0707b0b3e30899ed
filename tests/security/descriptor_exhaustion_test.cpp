// A caller that opens connections until the server has no file descriptor
// left: the server must neither spin on its listening socket nor leave new
// clients hanging. It answers them 503 with Retry-After and closes, and it
// serves again once descriptors are free. At start it raises its own
// soft open-file limit to the hard one, so its connection caps are reachable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

// utime + stime of @p pid, in seconds.
double cpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stol(field);
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// "Max open files" of @p pid: {soft, hard}.
std::pair<std::string, std::string> openFileLimits(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("Max open files")) continue;
    std::istringstream words(line.substr(14));
    std::string soft, hard;
    words >> soft >> hard;
    return {soft, hard};
  }
  return {};
}

// One request on a new connection: what arrived, and whether the server
// ended the connection (answer, close or reset) before @p timeout.
std::pair<std::string, bool> exchange(int port, const std::string& request,
                                      std::chrono::milliseconds timeout) {
  const int fd = connectLoopback(port);
  if (fd < 0) return {"", true};
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  const bool ended = receiveUntil(fd, answer, timeout) == Received::closed;
  ::close(fd);
  return {answer, ended};
}

TEST(SecurityDescriptors, RunningOutOfDescriptorsNeitherSpinsNorHangsNewClients) {
  ServerProcess server;
  ASSERT_EQ(http(server.port(), "GET", "/health").status, 200);
  const rlimit few{64, 64};
  ASSERT_EQ(::prlimit(server.pid(), RLIMIT_NOFILE, &few, nullptr), 0);

  // More connections than the server has descriptors for: the rest wait in
  // the listening socket's backlog.
  std::vector<int> held;
  for (int i = 0; i < 100; ++i) {
    const int fd = connectLoopback(server.port());
    ASSERT_GE(fd, 0);
    held.push_back(fd);
  }
  std::this_thread::sleep_for(300ms);
  const double before = cpuSeconds(server.pid());
  std::this_thread::sleep_for(1s);
  EXPECT_LT(cpuSeconds(server.pid()) - before, 0.3) << "the server spins while out of descriptors";

  // A new client is not left hanging: it is answered 503 and closed (one
  // still sending may see a reset instead).
  int answered = 0;
  for (int i = 0; i < 10; ++i) {
    const auto [answer, ended] = exchange(server.port(), kHealth, 3s);
    EXPECT_TRUE(ended) << "a new client hangs while the server is out of descriptors";
    if (answer.empty()) continue;
    ++answered;
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 503 "));
    EXPECT_THAT(answer, HasSubstr("Retry-After: 1\r\n"));
    EXPECT_THAT(answer, HasSubstr("no file descriptor left"));
  }
  std::printf("[ figures  ] out of descriptors: %d of 10 new clients read the 503\n", answered);
  EXPECT_GT(answered, 0) << "no new client was told why";

  for (int fd : held) ::close(fd);
  std::string again;
  for (int i = 0; i < 50 && !again.starts_with("HTTP/1.1 200 "); ++i) {
    std::this_thread::sleep_for(100ms);
    again = rawHttp(server.port(), kHealth, 2s);
  }
  EXPECT_THAT(again, StartsWith("HTTP/1.1 200 "))
      << "the server serves again once descriptors free";
}

TEST(SecurityDescriptors, TheSoftOpenFileLimitIsRaisedToTheHardOne) {
  rlimit own{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &own), 0);
  if (own.rlim_max < 1024) GTEST_SKIP() << "the hard limit is too low to tell";
  rlimit lowered = own;
  lowered.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  std::optional<ServerProcess> server;
  server.emplace();  // inherits the lowered soft limit
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &own), 0);
  const auto [soft, hard] = openFileLimits(server->pid());
  EXPECT_EQ(soft, hard);
  EXPECT_EQ(hard, own.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(own.rlim_max));
}

}  // namespace
}  // namespace abx::testing
