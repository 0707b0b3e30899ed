// Integration: the HTTP front end with the real binary — idle keep-alive
// and slowly sent heads hold no worker, a head has one total deadline,
// beyond the connection caps the core group still answers, pipelined
// requests are answered in order, a burst of connections waits in the backlog.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

ServerOptions commandsServer(std::map<std::string, std::string> env = {},
                             std::vector<std::string> args = {}) {
  ServerOptions o;
  o.files = {{"commands.yaml", "commands: [{name: hi, argv: ['/bin/echo', 'hi']}]\n"}};
  o.files["plugins.yaml"] =
      "plugins:\n  - {name: commands, file: abx_commands.so, settings: {commands_file: "
      "'{dir}/commands.yaml'}}\n";
  o.env = std::move(env);
  o.args = {"--plugins", "{dir}/plugins.yaml"};
  o.args.insert(o.args.end(), args.begin(), args.end());
  return o;
}

void sendText(int fd, const std::string& text) {
  ASSERT_EQ(::send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
}

/** What arrives on @p fd within @p wait (until the peer closes or stays silent for 50 ms). */
std::string receive(int fd, std::chrono::milliseconds wait) {
  std::string out;
  auto deadline = Clock::now() + wait;
  char buf[4096];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, out.empty() ? 100 : 50) <= 0) {
      if (!out.empty()) break;
      continue;
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

TEST(Connections, IdleKeepAliveAndSlowHeadsHoldNoWorker) {
  ServerProcess server(commandsServer({}, {"--threads", "2"}));
  std::vector<int> held;
  for (int i = 0; i < 40; ++i) {  // each asked once and now waits: keep-alive
    int fd = connectLoopback(server.port());
    sendText(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    EXPECT_THAT(receive(fd, 2s), StartsWith("HTTP/1.1 200"));
    held.push_back(fd);
  }
  for (int i = 0; i < 40; ++i) {  // heads that never finish
    int fd = connectLoopback(server.port());
    sendText(fd, "GET /commands HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    held.push_back(fd);
  }
  // Two workers, 80 connections held: a request that needs a worker still runs.
  auto t0 = Clock::now();
  auto r = http(server.port(), "POST", "/commands/hi", "{}");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_LT(Clock::now() - t0, 2s);
  // And the parked connections still work.
  sendText(held.front(), "GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(receive(held.front(), 2s), StartsWith("HTTP/1.1 200"));
  for (int fd : held) ::close(fd);
}

TEST(Connections, AHeadHasOneDeadlineNotOnePerRead) {
  ServerProcess server(commandsServer({{"ABX_SERVER_HEAD_TIMEOUT_S", "1"}}));
  int fd = connectLoopback(server.port());
  sendText(fd, "GET /health HTTP/1.1\r\n");
  auto t0 = Clock::now();
  std::string answer;
  for (int i = 0; i < 20 && answer.empty(); ++i) {  // a line every 200 ms: never idle
    ::send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
    answer = receive(fd, 200ms);
  }
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 408"));
  EXPECT_LT(Clock::now() - t0, 3s);
  ::close(fd);
}

TEST(Connections, BeyondTheCapsTheCoreGroupStillAnswers) {
  ServerProcess server(commandsServer({{"ABX_SERVER_MAX_CONNECTIONS_PER_PEER", "3"}}));
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) held.push_back(connectLoopback(server.port()));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
  auto refused = http(server.port(), "GET", "/commands");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.headers["retry-after"], "1");
  for (int fd : held) ::close(fd);
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(http(server.port(), "GET", "/commands").status, 200);
}

TEST(Connections, PipelinedRequestsAreAnsweredInOrder) {
  ServerProcess server(commandsServer());
  int fd = connectLoopback(server.port());
  sendText(fd,
           "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
           "POST /commands/hi HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}"
           "GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  // Until the server closes: a pause between the answers (a command spawning
  // on a busy machine) must not end the read early.
  std::string all;
  EXPECT_EQ(receiveUntil(fd, all, 10s), Received::closed);
  auto first = all.find("HTTP/1.1 200");
  auto second = all.find("HTTP/1.1 200", first + 1);
  auto third = all.find("HTTP/1.1 404");
  EXPECT_NE(first, std::string::npos);
  EXPECT_NE(second, std::string::npos);
  EXPECT_NE(third, std::string::npos);
  EXPECT_LT(second, third);
  EXPECT_THAT(all, HasSubstr("hi"));
  ::close(fd);
}

// The loop stopped (SIGSTOP) while a burst connects: the kernel completes
// each handshake into the listening socket's backlog. Connections beyond a
// short backlog would be dropped and wait out a retransmission (1 s for a
// SYN) once the loop runs again.
TEST(Connections, ABurstOfNewConnectionsWaitsInTheBacklog) {
  std::size_t somaxconn = 0;
  std::ifstream("/proc/sys/net/core/somaxconn") >> somaxconn;
  constexpr std::size_t kBurst = 1500;  // the old backlog was 1 024
  if (somaxconn <= kBurst) GTEST_SKIP() << "net.core.somaxconn is " << somaxconn;
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = std::max<rlim_t>(files.rlim_cur, std::min<rlim_t>(files.rlim_max, 4096));
  ::setrlimit(RLIMIT_NOFILE, &files);
  ASSERT_GT(files.rlim_cur, kBurst + 64);

  ServerProcess server(commandsServer());
  ASSERT_EQ(http(server.port(), "GET", "/health").status, 200);
  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  // Well inside the 1 s a dropped SYN waits before it is sent again.
  const std::size_t connected = connectBurst(server.port(), kBurst, 500ms);
  ::kill(server.pid(), SIGCONT);
  EXPECT_EQ(connected, kBurst);
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
}

TEST(Connections, MalformedHeadsAreRefusedAndClosed) {
  ServerProcess server(commandsServer());
  for (std::string head :
       {"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        "GET / HTTP/2.0\r\n\r\n",
        "GET /health HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"}) {
    int fd = connectLoopback(server.port());
    sendText(fd, head);
    auto answer = receive(fd, 2s);
    EXPECT_THAT(answer, ::testing::AnyOf(StartsWith("HTTP/1.1 400"), StartsWith("HTTP/1.1 505")))
        << head;
    EXPECT_THAT(answer, HasSubstr("Connection: close"));
    ::close(fd);
  }
}

}  // namespace
}  // namespace abx::testing
