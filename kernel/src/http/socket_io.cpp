#include "http/socket_io.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <optional>
#include <vector>

namespace abx::kernel {
namespace {

std::atomic<int> g_timeout_ms{60'000};
thread_local bool t_no_wait = false;

/** Waits for @p events on @p fd until @p deadline; false on timeout or error. */
bool awaitReady(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  if (t_no_wait) return false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

std::chrono::steady_clock::time_point ioDeadline() {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(g_timeout_ms.load());
}

}  // namespace

NoWaitScope::NoWaitScope() : was_(t_no_wait) { t_no_wait = true; }

NoWaitScope::~NoWaitScope() { t_no_wait = was_; }

void setIoTimeout(std::chrono::milliseconds timeout) {
  g_timeout_ms.store(static_cast<int>(timeout.count()));
}

bool writeAll(int fd, std::initializer_list<std::string_view> parts) {
  std::vector<iovec> iov;
  iov.reserve(parts.size());
  for (auto part : parts)
    if (!part.empty()) iov.push_back({const_cast<char*>(part.data()), part.size()});
  std::size_t first = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  while (first < iov.size()) {
    msghdr msg{};
    msg.msg_iov = iov.data() + first;
    msg.msg_iovlen = iov.size() - first;
    ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      // A full socket: wait for the client, but not forever.
      if (!deadline) deadline = ioDeadline();
      if (!awaitReady(fd, POLLOUT, *deadline)) return false;
      continue;
    }
    auto left = static_cast<std::size_t>(n);
    while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (first < iov.size()) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
  return true;
}

ssize_t readSome(int fd, char* buffer, std::size_t n) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  while (true) {
    ssize_t got = ::recv(fd, buffer, n, MSG_DONTWAIT);
    if (got >= 0) return got;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (!deadline) deadline = ioDeadline();
    if (!awaitReady(fd, POLLIN, *deadline)) return -1;
  }
}

std::string socketAddress(int fd, bool peer) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                : ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, text, sizeof text);
  else if (addr.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, text, sizeof text);
  return text;
}

std::string httpDate() {
  thread_local std::time_t cached_second = 0;
  thread_local std::string cached;
  std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached = buf;
    cached_second = now;
  }
  return cached;
}

}  // namespace abx::kernel
