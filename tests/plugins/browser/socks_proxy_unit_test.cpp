// The browser's SOCKS5 proxy (socks_proxy.h) spoken to by hand over
// loopback: a refused CONNECT answers "not allowed by ruleset" and is
// recorded with its rule, an allowed one relays bytes both ways to the
// address the decision named, a closed port is recorded as
// ERR_CONNECTION_REFUSED, anything but CONNECT is refused, and running out
// of descriptors does not make it spin.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "net_address.h"
#include "socks_proxy.h"

namespace abx::plugins::browser {
namespace {

/** A blocking loopback client socket connected to @p port. */
int connectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

std::string readN(int fd, std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::recv(fd, out.data() + got, n - got, 0);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(got);
  return out;
}

/** Greeting plus a CONNECT to @p host (a name) and @p port; @return the reply code. */
int socksConnect(int fd, const std::string& host, int port, unsigned char command = 1) {
  const std::string hello("\x05\x01\x00", 3);
  ::send(fd, hello.data(), hello.size(), 0);
  if (readN(fd, 2) != std::string("\x05\x00", 2)) return -1;
  std::string request("\x05", 1);
  request += static_cast<char>(command);
  request += std::string("\x00\x03", 2);
  request += static_cast<char>(host.size());
  request += host;
  request += static_cast<char>(port >> 8);
  request += static_cast<char>(port & 255);
  ::send(fd, request.data(), request.size(), 0);
  const auto reply = readN(fd, 10);
  return reply.size() == 10 ? static_cast<unsigned char>(reply[1]) : -1;
}

/** A listener on 127.0.0.1 that echoes what it reads once, upper-cased. */
class Echo {
 public:
  Echo() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 4);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &length);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buffer[64];
      const ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
      for (ssize_t i = 0; i < n; ++i) buffer[i] = static_cast<char>(std::toupper(buffer[i]));
      if (n > 0) ::send(c, buffer, static_cast<std::size_t>(n), 0);
      ::close(c);
    });
  }
  ~Echo() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

SocksProxy::Decide policy(UrlRules rules) {
  return [rules](const std::string& host, int port) { return decideConnection(host, port, rules); };
}

TEST(SocksProxy, RefusedConnectIsNotAllowedByRulesetAndRecorded) {
  UrlRules rules;
  rules.deny = std::vector<std::string>{"*.internal"};
  auto proxy = SocksProxy::start(policy(rules));
  ASSERT_TRUE(proxy);
  const auto from = (*proxy)->nextSequence();
  const int fd = connectTo((*proxy)->port());
  EXPECT_EQ(socksConnect(fd, "db.internal", 80), 0x02);
  ::close(fd);
  auto outcomes = (*proxy)->outcomesSince(from);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].host, "db.internal");
  EXPECT_EQ(outcomes[0].port, 80);
  EXPECT_EQ(outcomes[0].verdict.status, 403);
  EXPECT_EQ(outcomes[0].verdict.rule, "url_deny *.internal");
}

TEST(SocksProxy, AllowedConnectRelaysBothWays) {
  Echo echo;
  auto proxy = SocksProxy::start(policy({}));
  ASSERT_TRUE(proxy);
  const int fd = connectTo((*proxy)->port());
  ASSERT_EQ(socksConnect(fd, "localhost", echo.port()), 0x00);
  ::send(fd, "hello", 5, 0);
  EXPECT_EQ(readN(fd, 5), "HELLO");
  EXPECT_EQ(readN(fd, 1), "");  // the far side closed: so does the proxy
  ::close(fd);
}

TEST(SocksProxy, BlockPrivateNetworksRefusesLoopbackByAddress) {
  Echo echo;
  UrlRules rules;
  rules.block_private = true;
  auto proxy = SocksProxy::start(policy(rules));
  ASSERT_TRUE(proxy);
  for (const char* host :
       {"localhost", "127.0.0.1", "0x7f.1", "::ffff:7f00:1", "evil.localhost."}) {
    const int fd = connectTo((*proxy)->port());
    EXPECT_EQ(socksConnect(fd, host, echo.port()), 0x02) << host;
    ::close(fd);
  }
  auto outcomes = (*proxy)->outcomesSince(0);
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(outcomes[3].host, "[::ffff:7f00:1]");  // an IPv6 name gets its brackets
  for (const auto& o : outcomes) EXPECT_EQ(o.verdict.rule, "block_private_networks") << o.host;
}

TEST(SocksProxy, ClosedPortIsRecordedAsConnectionRefused) {
  int closed_port = 0;
  {
    Echo probe;
    closed_port = probe.port();
    const int fd = connectTo(closed_port);  // let the echo thread finish
    ::close(fd);
  }
  auto proxy = SocksProxy::start(policy({}));
  ASSERT_TRUE(proxy);
  const int fd = connectTo((*proxy)->port());
  EXPECT_EQ(socksConnect(fd, "127.0.0.1", closed_port), 0x05);
  ::close(fd);
  auto outcomes = (*proxy)->outcomesSince(0);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].verdict.status, 502);
  EXPECT_EQ(outcomes[0].verdict.message, "net::ERR_CONNECTION_REFUSED");
}

TEST(SocksProxy, OnlyConnectIsServed) {
  auto proxy = SocksProxy::start(policy({}));
  ASSERT_TRUE(proxy);
  const int bind_fd = connectTo((*proxy)->port());
  EXPECT_EQ(socksConnect(bind_fd, "127.0.0.1", 80, 2), 0x07);  // BIND
  ::close(bind_fd);
  const int udp_fd = connectTo((*proxy)->port());
  EXPECT_EQ(socksConnect(udp_fd, "127.0.0.1", 80, 3), 0x07);  // UDP ASSOCIATE
  ::close(udp_fd);
  // A client that offers only username/password authentication is turned away.
  const int auth_fd = connectTo((*proxy)->port());
  ::send(auth_fd, "\x05\x01\x02", 3, 0);
  EXPECT_EQ(readN(auth_fd, 2), std::string("\x05\xff", 2));
  ::close(auth_fd);
}

double processCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// A connection waits in the backlog while the process has no descriptor to
// accept it: the listening socket stays readable, and the accept loop must
// wait instead of spinning on it.
TEST(SocksProxy, OutOfDescriptorsItWaitsInsteadOfSpinning) {
  auto proxy = SocksProxy::start(policy({}));
  ASSERT_TRUE(proxy) << proxy.status().message();
  // One whole exchange first: the proxy's threads have started (UBSan's
  // first type check of a thread needs descriptors of its own).
  const int first = connectTo((*proxy)->port());
  ASSERT_EQ(socksConnect(first, "127.0.0.1", 9, 2), 7);
  ::close(first);
  rlimit own{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &own), 0);
  const int waiting = connectTo((*proxy)->port());
  std::vector<int> fillers;
  rlimit few = own;
  few.rlim_cur = static_cast<rlim_t>(waiting) + 16;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &few), 0);
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fillers.push_back(fd);
  const double before = processCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double spent = processCpuSeconds() - before;
  for (int fd : fillers) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &own), 0);
  EXPECT_LT(spent, 0.15) << "the accept loop spins while out of descriptors";
  // Once descriptors are free the waiting connection is served.
  EXPECT_EQ(socksConnect(waiting, "127.0.0.1", 9, 2), 7);
  ::close(waiting);
}

}  // namespace
}  // namespace abx::plugins::browser
