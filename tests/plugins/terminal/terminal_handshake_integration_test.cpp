// Integration: the PTY port's connections and threads against the real
// server. Clients that send half an upgrade request (more of them than the
// 8 handshake threads the port once had) hold no thread and stop no one
// else's terminal; one that trickles its request is cut off at the 10 s
// handshake deadline however steadily it sends; an oversized head is
// refused with 431 and one with two Content-Lengths with 400; a flood of half-open handshakes
// beyond the cap (64) still lets a normal client attach, the oldest of them being dropped; 24
// attached terminals add no thread and one that reads nothing stalls only
// itself; an attached terminal holds its pty_connect concurrency slot; a
// burst of connects waits in the listening socket's backlog.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "plugins/terminal/terminal_test_client.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace pty_support;
using namespace std::chrono_literals;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

/** A connection that sent the start of an upgrade request and nothing more. */
int halfOpen(int port, const std::string& target) {
  const int fd = connectLoopback(port);
  if (fd < 0) return fd;
  const std::string start = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: web";
  if (::send(fd, start.data(), start.size(), MSG_NOSIGNAL) < 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/** True when the server closed @p fd (end of stream or reset), waiting up to @p wait. */
bool closedByServer(int fd, std::chrono::milliseconds wait = 0ms) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
  char byte;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

void closeAll(std::vector<int>& fds) {
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  fds.clear();
}

/** Attaches to @p c and echoes a command. @return how long it took, or nullopt on failure. */
std::optional<Clock::duration> attachAndEcho(const Created& c, const std::string& word) {
  const auto start = Clock::now();
  try {
    int status = 0;
    auto ws = WsClient::connect(c.port, "/pty?session_id=" + c.id, kAuth, &status);
    if (!ws) return std::nullopt;
    auto started = ws->next();
    if (!started || started->getValue<std::string>("event") != "started") return std::nullopt;
    ws->input("echo " + word + "-$((20+22))\n");
    if (!ws->waitOutput(word + "-42\r\n")) return std::nullopt;
  } catch (const Poco::Exception& e) {
    std::cout << "attach: " << e.displayText() << "\n";
    return std::nullopt;
  }
  return Clock::now() - start;
}

TEST(TerminalHandshake, SlowHandshakesHoldNoThreadAndStopNoTerminal) {
  constexpr int kSlowClients = 20;  // the port once ran handshakes on 8 threads
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  ASSERT_TRUE(attachAndEcho(c, "warm"));  // whatever starts with the first terminal
  const std::size_t before = threadNames(server.pid()).size();

  std::vector<int> slow;
  for (int i = 0; i < kSlowClients; ++i)
    slow.push_back(halfOpen(c.port, "/pty?session_id=" + c.id));
  std::this_thread::sleep_for(500ms);  // the server has seen them all
  const std::size_t during = threadNames(server.pid()).size();

  // A normal client attaches and echoes at once, not after the slow ones time out.
  auto took = attachAndEcho(c, "through");
  const std::size_t after = threadNames(server.pid()).size();
  std::cout << "[ threads ] " << kSlowClients << " slow handshakes: " << before << " before, "
            << during << " with them open, " << after << " after an attach\n";
  EXPECT_LE(during, before);
  EXPECT_LE(after, before);
  ASSERT_TRUE(took) << "a normal client could not attach past " << kSlowClients
                    << " slow handshakes";
  EXPECT_LT(*took, 3s);
  std::cout << "[ attach  ] attached and echoed in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(*took).count()
            << " ms past them\n";
  int still_open = 0;
  for (int fd : slow) still_open += fd >= 0 && !closedByServer(fd) ? 1 : 0;
  EXPECT_EQ(still_open, kSlowClients);  // waiting for the rest of their heads
  closeAll(slow);
}

TEST(TerminalHandshake, ATrickledRequestIsCutOffAtTheDeadline) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  const auto start = Clock::now();
  const int fd = halfOpen(c.port, "/pty?session_id=" + c.id);
  ASSERT_GE(fd, 0);
  // One more header byte every 250 ms: never idle, never done.
  bool closed = false;
  while (!closed && Clock::now() - start < 15s) {
    ::send(fd, "x", 1, MSG_NOSIGNAL);
    closed = closedByServer(fd, 250ms);
  }
  const auto took = Clock::now() - start;
  ::close(fd);
  EXPECT_TRUE(closed);
  EXPECT_GE(took, 9s);
  EXPECT_LT(took, 12s);
}

TEST(TerminalHandshake, AnOversizedHeadIsRefusedWith431) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  const std::string head = "GET /pty?session_id=" + c.id +
                           " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + std::string(40000, 'a') +
                           "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
  auto answer = rawHttp(c.port, head, 5s);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 431 "));
  EXPECT_THAT(answer, ::testing::HasSubstr(R"("type":"ValueError")"));
  // Read by the HTTP port's parser: two Content-Lengths are one request read two ways.
  auto ambiguous =
      rawHttp(c.port,
              "GET /pty?session_id=" + c.id +
                  " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
                  "Content-Length: 5\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
              5s);
  EXPECT_THAT(ambiguous, StartsWith("HTTP/1.1 400 "));
  EXPECT_THAT(ambiguous, ::testing::HasSubstr("Several Content-Length fields"));
  // The port serves on.
  EXPECT_TRUE(attachAndEcho(c, "next"));
}

TEST(TerminalHandshake, AFloodOfHalfOpenHandshakesIsBounded) {
  constexpr int kFlood = 100;
  constexpr int kCap = 64;
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  std::vector<int> flood;
  for (int i = 0; i < kFlood; ++i) flood.push_back(halfOpen(c.port, "/pty?session_id=" + c.id));
  std::this_thread::sleep_for(300ms);  // the server has seen them all
  auto took = attachAndEcho(c, "flooded");
  ASSERT_TRUE(took);
  EXPECT_LT(*took, 3s);
  // The oldest half-open handshakes made room for the newer ones.
  int dropped = 0;
  for (int fd : flood) dropped += fd < 0 || closedByServer(fd) ? 1 : 0;
  EXPECT_GE(dropped, kFlood - kCap);
  EXPECT_LT(dropped, kFlood);
  closeAll(flood);
}

// The port's loop stopped (SIGSTOP) while a burst connects: each handshake
// waits in the backlog (it was 64), not dropped to wait out a 1 s SYN
// retransmission; a terminal attaches once the server runs again.
TEST(TerminalHandshake, ABurstOfConnectsWaitsInTheBacklog) {
  constexpr std::size_t kBurst = 300;
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  const std::size_t connected = connectBurst(c.port, kBurst, 500ms);
  ::kill(server.pid(), SIGCONT);
  EXPECT_EQ(connected, kBurst);
  EXPECT_TRUE(attachAndEcho(c, "after-burst"));
}

// One thread serves the PTY port: 24 terminals (three times the handshake
// threads the port once had) all get their started event and echo their
// input, and the server grows by no thread.
TEST(TerminalWebSocket, ManyTerminalsShareOneBridgeThread) {
  constexpr int kTerminals = 24;
  Config s;
  s.settings = "      max_sessions: " + std::to_string(kTerminals) + "\n";
  ServerProcess server(options(s));
  std::vector<Created> made;
  for (int i = 0; i < kTerminals; ++i) made.push_back(create(server, R"({"shell":"/bin/sh"})"));
  const std::size_t before = threadNames(server.pid()).size();

  std::vector<std::unique_ptr<WsClient>> clients;
  for (const auto& c : made) clients.push_back(attach(c));  // each saw its started event
  for (int i = 0; i < kTerminals; ++i)
    clients[i]->input("echo term-$((" + std::to_string(i) + "+1000))\n");
  for (int i = 0; i < kTerminals; ++i)
    EXPECT_TRUE(clients[i]->waitOutput("term-" + std::to_string(i + 1000) + "\r\n"))
        << i << ": " << clients[i]->output;

  const auto names = threadNames(server.pid());
  EXPECT_EQ(std::count(names.begin(), names.end(), "abx-pty-bridge"), 1);
  EXPECT_LE(names.size(), before);
  std::cout << "[ threads ] " << kTerminals << " terminals: " << before << " threads before, "
            << names.size() << " with all attached\n";

  // A terminal that takes no output stalls only itself: the others still echo.
  clients[0]->input("yes stalled-output-line\n");
  for (int i = 1; i < kTerminals; ++i) {
    clients[i]->input("echo again-$((" + std::to_string(i) + "+2000))\n");
    EXPECT_TRUE(clients[i]->waitOutput("again-" + std::to_string(i + 2000) + "\r\n")) << i;
  }
}

// pty_connect's max_concurrency counts attached terminals, not handshakes:
// the slot is held while the connection lives and given back when it ends.
TEST(TerminalHandshake, MaxConcurrencyCountsAttachedTerminals) {
  Config s;
  s.policy = "endpoints:\n  pty_connect: {limits: {max_concurrency: 1}}\n";
  ServerProcess server(options(s));
  auto a = create(server, R"({"shell":"/bin/sh"})");
  auto b = create(server, R"({"shell":"/bin/sh"})");
  auto first = attach(a);
  auto refused = http(b.port, "GET", "/pty?session_id=" + b.id, "", upgrade(kAuth));
  EXPECT_EQ(refused.status, 429);
  EXPECT_THAT(refused.body, ::testing::HasSubstr("concurrency_limited"));
  first.reset();  // closes the connection
  EXPECT_TRUE(eventually([&] {
    return http(server.port(), "GET", "/pty/sessions/" + a.id, "", kAuth)
               .body.find(R"("connected":false)") != std::string::npos;
  }));
  EXPECT_TRUE(attachAndEcho(b, "second"));
}

}  // namespace
}  // namespace abx::testing
