// The latency floor of the machine for the HTTP benchmarks
// (tests/bench/health_bench.sh, tests/bench/load_bench.sh): one epoll loop
// on one thread that answers every request head with the same small 200 and
// keeps the connection (unless a read holds "Connection: close"). It parses
// nothing else, checks nothing and allocates nothing per request, so its tail latency is what the
// scheduler and the kernel's loopback give any single event loop on the machine under the same
// load. A server's p99 is read against it in the same run.
//
// usage: abx_floor_server PORT   (127.0.0.1 only; PORT 0 picks one)
// Prints "listening on 127.0.0.1:<port>" once ready; stops on SIGTERM/SIGINT.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace {

constexpr std::string_view kAnswer =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
    "{\"status\":\"ok\"}";

volatile sig_atomic_t g_stop = 0;

int listenOn(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4096) != 0)
    return -1;
  return fd;
}

/** Counts the request heads ("\r\n\r\n") in what arrived; @p tail carries a split terminator. */
int headsIn(std::string_view data, int& tail) {
  static constexpr char kEnd[] = "\r\n\r\n";
  int heads = 0;
  for (char c : data) {
    tail = c == kEnd[tail] ? tail + 1 : (c == '\r' ? 1 : 0);
    if (tail == 4) {
      ++heads;
      tail = 0;
    }
  }
  return heads;
}

/** Reads what is there and answers each complete head; @return false when the peer is gone. */
bool serve(int fd, int& tail) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    const std::string_view data(buf, static_cast<std::size_t>(n));
    const int heads = headsIn(data, tail);
    for (int i = 0; i < heads; ++i)
      if (::send(fd, kAnswer.data(), kAnswer.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(kAnswer.size()))
        return false;  // a client that does not read its answers is dropped
    if (heads > 0 && data.find("Connection: close") != std::string_view::npos) return false;
  }
}

void acceptAll(int listener, int ep, std::unordered_map<int, int>& tails) {
  for (;;) {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    tails[fd] = 0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PORT\n", argv[0]);
    return 2;
  }
  struct sigaction stop {};
  stop.sa_handler = [](int) { g_stop = 1; };
  ::sigaction(SIGTERM, &stop, nullptr);
  ::sigaction(SIGINT, &stop, nullptr);
  const int listener = listenOn(std::atoi(argv[1]));
  if (listener < 0) {
    std::perror("listen");
    return 1;
  }
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &len);
  std::printf("listening on 127.0.0.1:%d\n", ntohs(bound.sin_port));
  std::fflush(stdout);

  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listener;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  std::unordered_map<int, int> tails;  // fd -> bytes of "\r\n\r\n" seen at the end so far
  epoll_event events[256];
  while (!g_stop) {
    const int n = ::epoll_wait(ep, events, 256, 200);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        acceptAll(listener, ep, tails);
      } else if (!serve(fd, tails[fd])) {
        tails.erase(fd);
        ::close(fd);
      }
    }
  }
  return 0;
}
