#include "cli/health_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "http/socket_io.h"

namespace abx::kernel {
namespace {

using Clock = std::chrono::steady_clock;

int millisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// A non-blocking connect to the first address that answers before the deadline.
int connectBefore(const std::string& host, int port, Clock::time_point deadline,
                  std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    error = std::string("cannot resolve ") + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  error = "connection refused";
  for (auto* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int err = connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      socklen_t len = sizeof err;
      err = ETIMEDOUT;
      if (poll(&p, 1, millisLeft(deadline)) == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
    if (err != 0) {
      error = std::strerror(err);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

HealthProbeResult probeHealth(const std::string& host, int port, const std::string& path,
                              std::chrono::milliseconds timeout) {
  HealthProbeResult result;
  const auto deadline = Clock::now() + timeout;
  int fd = connectBefore(host, port, deadline, result.error);
  if (fd < 0) return result;
  setIoTimeout(std::chrono::milliseconds(millisLeft(deadline)));
  const bool v6 = host.find(':') != std::string::npos;
  const std::string request = "GET " + path +
                              " HTTP/1.1\r\nHost: " + (v6 ? "[" + host + "]" : host) + ":" +
                              std::to_string(port) + "\r\nConnection: close\r\n\r\n";
  std::string answer;
  if (writeAll(fd, {request})) {
    char buffer[512];
    while (answer.find("\r\n") == std::string::npos && answer.size() < 4096) {
      setIoTimeout(std::chrono::milliseconds(millisLeft(deadline)));
      ssize_t n = readSome(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      answer.append(buffer, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  // "HTTP/1.1 200 OK": the code is the second word.
  if (answer.rfind("HTTP/1.", 0) == 0 && answer.size() >= 12)
    result.status = std::atoi(answer.c_str() + 9);
  if (result.status == 0) result.error = answer.empty() ? "no answer" : "not an HTTP answer";
  return result;
}

}  // namespace abx::kernel
