#include "socks_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "net_address.h"

namespace abx::plugins::browser {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kConnectTimeout = std::chrono::seconds(15);
constexpr std::size_t kRelayBuffer = 64 * 1024;

// SOCKS5 reply codes (RFC 1928 §6).
constexpr unsigned char kSucceeded = 0x00, kGeneralFailure = 0x01, kNotAllowed = 0x02,
                        kHostUnreachable = 0x04, kConnectionRefused = 0x05,
                        kCommandNotSupported = 0x07, kAddressNotSupported = 0x08;

int msLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

/** Waits for @p events on @p fd; false on timeout or when the proxy stops. */
bool waitFor(int fd, short events, int wake, Clock::time_point deadline) {
  pollfd fds[2] = {{fd, events, 0}, {wake, POLLIN, 0}};
  while (true) {
    const int n = ::poll(fds, 2, msLeft(deadline));
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && fds[1].revents == 0 && fds[0].revents != 0;
  }
}

/** Reads exactly @p n bytes before @p deadline. */
bool readExactly(int fd, unsigned char* out, std::size_t n, int wake, Clock::time_point deadline) {
  std::size_t got = 0;
  while (got < n) {
    if (!waitFor(fd, POLLIN, wake, deadline)) return false;
    const ssize_t r = ::recv(fd, out + got, n - got, 0);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) return false;
    if (r > 0) got += static_cast<std::size_t>(r);
  }
  return true;
}

bool sendAll(int fd, const unsigned char* data, std::size_t n, int wake,
             Clock::time_point deadline) {
  std::size_t sent = 0;
  while (sent < n) {
    if (!waitFor(fd, POLLOUT, wake, deadline)) return false;
    const ssize_t r = ::send(fd, data + sent, n - sent, MSG_NOSIGNAL);
    if (r < 0 && errno != EAGAIN && errno != EINTR) return false;
    if (r > 0) sent += static_cast<std::size_t>(r);
  }
  return true;
}

void reply(int fd, unsigned char code, int wake) {
  const unsigned char answer[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
  sendAll(fd, answer, sizeof answer, wake, Clock::now() + kHandshakeTimeout);
}

/** The SOCKS5 greeting and CONNECT request: the host as sent and the port. */
bool readRequest(int fd, int wake, std::string& host, int& port) {
  const auto deadline = Clock::now() + kHandshakeTimeout;
  unsigned char head[2], methods[255];
  if (!readExactly(fd, head, 2, wake, deadline) || head[0] != 5) return false;
  if (!readExactly(fd, methods, head[1], wake, deadline)) return false;
  const bool no_auth = std::memchr(methods, 0, head[1]) != nullptr;
  const unsigned char choice[2] = {5, static_cast<unsigned char>(no_auth ? 0x00 : 0xFF)};
  if (!sendAll(fd, choice, 2, wake, deadline) || !no_auth) return false;
  unsigned char request[4];
  if (!readExactly(fd, request, 4, wake, deadline) || request[0] != 5) return false;
  if (request[1] != 1) {  // CONNECT only: no BIND, no UDP ASSOCIATE
    reply(fd, kCommandNotSupported, wake);
    return false;
  }
  unsigned char address[256];
  if (request[3] == 1) {
    if (!readExactly(fd, address, 4, wake, deadline)) return false;
    host = std::to_string(address[0]) + "." + std::to_string(address[1]) + "." +
           std::to_string(address[2]) + "." + std::to_string(address[3]);
  } else if (request[3] == 3) {
    unsigned char length;
    if (!readExactly(fd, &length, 1, wake, deadline) ||
        !readExactly(fd, address, length, wake, deadline))
      return false;
    host.assign(reinterpret_cast<char*>(address), length);
    // Chromium sends an IPv6 literal as a name, without brackets.
    if (host.find(':') != std::string::npos && !host.starts_with('[')) host = "[" + host + "]";
  } else if (request[3] == 4) {
    if (!readExactly(fd, address, 16, wake, deadline)) return false;
    char text[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET6, address, text, sizeof text);
    host = std::string("[") + text + "]";
  } else {
    reply(fd, kAddressNotSupported, wake);
    return false;
  }
  unsigned char port_bytes[2];
  if (!readExactly(fd, port_bytes, 2, wake, deadline)) return false;
  port = port_bytes[0] << 8 | port_bytes[1];
  return port > 0;
}

/** Connects to the first address that answers; -1 with @p error set otherwise. */
int connectToAny(const std::vector<sockaddr_storage>& addresses, int wake, int& error) {
  error = EHOSTUNREACH;
  for (const auto& address : addresses) {
    const int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const socklen_t length =
        address.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0) return fd;
    if (errno == EINPROGRESS && waitFor(fd, POLLOUT, wake, Clock::now() + kConnectTimeout)) {
      int so_error = 0;
      socklen_t size = sizeof so_error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &size);
      if (so_error == 0) return fd;
      error = so_error;
    } else {
      error = errno == EINPROGRESS ? ETIMEDOUT : errno;
    }
    ::close(fd);
  }
  return -1;
}

std::string netError(int error) {
  switch (error) {
    case ECONNREFUSED:
      return "net::ERR_CONNECTION_REFUSED";
    case ETIMEDOUT:
      return "net::ERR_CONNECTION_TIMED_OUT";
    case ENETUNREACH:
    case EHOSTUNREACH:
      return "net::ERR_ADDRESS_UNREACHABLE";
    default:
      return "net::ERR_CONNECTION_FAILED (" + std::string(std::strerror(error)) + ")";
  }
}

/** Copies bytes both ways until both sides finished or the proxy stops. */
void relay(int a, int b, int wake) {
  struct Direction {
    int from, to;
    std::string buffer;
    bool eof = false;
  } dirs[2] = {{a, b, {}, false}, {b, a, {}, false}};
  char chunk[kRelayBuffer];
  while (true) {
    pollfd fds[5];
    int n = 0;
    fds[n++] = {wake, POLLIN, 0};
    int reader[2] = {-1, -1}, writer[2] = {-1, -1};
    for (int i = 0; i < 2; ++i) {
      if (!dirs[i].eof && dirs[i].buffer.size() < kRelayBuffer) {
        reader[i] = n;
        fds[n++] = {dirs[i].from, POLLIN, 0};
      }
      if (!dirs[i].buffer.empty()) {
        writer[i] = n;
        fds[n++] = {dirs[i].to, POLLOUT, 0};
      }
    }
    if (n == 1) return;  // both sides ended and everything was delivered
    if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;
    for (int i = 0; i < 2; ++i) {
      Direction& d = dirs[i];
      if (reader[i] >= 0 && fds[reader[i]].revents) {
        const ssize_t r = ::recv(d.from, chunk, sizeof chunk, 0);
        if (r > 0) d.buffer.append(chunk, static_cast<std::size_t>(r));
        if (r == 0) d.eof = true;
        if (r < 0 && errno != EAGAIN && errno != EINTR) return;
        if (d.eof && d.buffer.empty()) ::shutdown(d.to, SHUT_WR);
      }
      if (writer[i] >= 0 && fds[writer[i]].revents) {
        const ssize_t w = ::send(d.to, d.buffer.data(), d.buffer.size(), MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EINTR) return;
        if (w > 0) d.buffer.erase(0, static_cast<std::size_t>(w));
        if (d.eof && d.buffer.empty()) ::shutdown(d.to, SHUT_WR);
      }
    }
  }
}

}  // namespace

sdk::Result<std::unique_ptr<SocksProxy>> SocksProxy::start(Decide decide) {
  std::unique_ptr<SocksProxy> proxy(new SocksProxy);
  proxy->decide_ = std::move(decide);
  if (::pipe2(proxy->wake_, O_CLOEXEC) != 0)
    return sdk::Status::error("Cannot create the proxy's wake pipe", "OSError");
  proxy->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (proxy->listen_fd_ < 0 ||
      ::bind(proxy->listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(proxy->listen_fd_, 128) != 0 ||
      ::getsockname(proxy->listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return sdk::Status::error("Cannot open the browser's proxy: " + std::string(strerror(errno)),
                              "OSError");
  proxy->port_ = ntohs(address.sin_port);
  proxy->acceptor_ = std::thread([p = proxy.get()] { p->acceptLoop(); });
  return proxy;
}

SocksProxy::~SocksProxy() {
  if (wake_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] auto ignored = ::write(wake_[1], &byte, 1);
  }
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& c : connections_)
    if (c.thread.joinable()) c.thread.join();
  for (int fd : {listen_fd_, wake_[0], wake_[1]})
    if (fd >= 0) ::close(fd);
}

void SocksProxy::acceptLoop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, 1000) < 0 && errno != EINTR) return;
    if (fds[1].revents) return;
    reap();
    if (!(fds[0].revents & POLLIN)) continue;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) {
      // Out of descriptors or memory the connection stays in the backlog and
      // the socket readable: wait a moment (or for the stop) instead of spinning.
      pollfd stop{wake_[0], POLLIN, 0};
      if ((errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) &&
          ::poll(&stop, 1, 100) > 0)
        return;
      continue;
    }
    std::lock_guard lock(mutex_);
    if (connections_.size() >= kMaxConnections) {
      ::close(client);
      continue;
    }
    auto& connection = connections_.emplace_back();
    connection.thread = std::thread([this, client, &connection] {
      serve(client);
      ::close(client);
      connection.done = true;
    });
  }
}

void SocksProxy::reap() {
  std::lock_guard lock(mutex_);
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (!it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = connections_.erase(it);
  }
}

void SocksProxy::serve(int client) {
  std::string host;
  int port = 0;
  if (!readRequest(client, wake_[0], host, port)) return;
  auto decision = decide_(host, port);
  if (decision.refusal) {
    if (decision.refusal->status == 502)
      decision.refusal->message = "net::ERR_NAME_NOT_RESOLVED (" + decision.refusal->message + ")";
    // Recorded before the answer: the navigation that fails on it reads the record.
    record(host, port, *decision.refusal);
    reply(client, decision.refusal->status == 403 ? kNotAllowed : kHostUnreachable, wake_[0]);
    return;
  }
  int error = 0;
  const int upstream = connectToAny(decision.addresses, wake_[0], error);
  if (upstream < 0) {
    record(host, port, UrlVerdict{502, netError(error), {}, {}});
    reply(client, error == ECONNREFUSED ? kConnectionRefused : kGeneralFailure, wake_[0]);
    return;
  }
  reply(client, kSucceeded, wake_[0]);
  relay(client, upstream, wake_[0]);
  ::close(upstream);
}

void SocksProxy::record(const std::string& host, int port, UrlVerdict verdict) {
  std::lock_guard lock(mutex_);
  outcomes_.push_back(Outcome{sequence_++, host, port, std::move(verdict)});
  if (outcomes_.size() > 64) outcomes_.erase(outcomes_.begin());
}

std::uint64_t SocksProxy::nextSequence() {
  std::lock_guard lock(mutex_);
  return sequence_;
}

std::vector<SocksProxy::Outcome> SocksProxy::outcomesSince(std::uint64_t sequence) {
  std::lock_guard lock(mutex_);
  std::vector<Outcome> out;
  for (const auto& o : outcomes_)
    if (o.sequence >= sequence) out.push_back(o);
  return out;
}

}  // namespace abx::plugins::browser
