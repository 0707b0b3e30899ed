#include "http/listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace abx::kernel {

int openListener(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    throw std::runtime_error(std::string("cannot resolve: ") + ::gai_strerror(rc));
  // IPv4 first, like the loopback default and most clients.
  const addrinfo* pick = found;
  for (const addrinfo* a = found; a; a = a->ai_next)
    if (a->ai_family == AF_INET) {
      pick = a;
      break;
    }
  int fd = ::socket(pick->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  // SO_REUSEADDR for a quick restart, never SO_REUSEPORT: with it any
  // process of the same user could bind the port too and receive a share of
  // the connections, with their tokens.
  if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // The longest backlog the kernel allows (it caps SOMAXCONN at
  // net.core.somaxconn): a burst of new connections — a pool warming up,
  // clients reconnecting after a restart — waits in it for the loop. Beyond
  // it the kernel drops the connection's packets, and the client's request
  // waits out a retransmission, 200 ms or more, however idle the loop is.
  if (fd < 0 || ::bind(fd, pick->ai_addr, pick->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    ::freeaddrinfo(found);
    throw std::runtime_error(std::generic_category().message(err));
  }
  ::freeaddrinfo(found);
  return fd;
}

int boundPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                    : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

rlim_t raiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    const rlim_t before = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return before;
  }
  return limit.rlim_cur;
}

DescriptorReserve::DescriptorReserve() { retake(); }

DescriptorReserve::~DescriptorReserve() {
  if (fd_ >= 0) ::close(fd_);
}

bool DescriptorReserve::retake() {
  if (fd_ < 0) fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return fd_ >= 0;
}

bool DescriptorReserve::shed(int listen_fd, const std::function<void(int)>& refuse) {
  while (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) refuse(fd);
    if (!retake()) return false;
    if (fd < 0) return true;  // the backlog is empty (or the accept failed otherwise)
  }
  return retake();
}

}  // namespace abx::kernel
