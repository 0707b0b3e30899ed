#include "http/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <unordered_map>
#include <variant>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/http_head.h"
#include "http/connection.h"
#include "http/listener.h"
#include "http/socket_exchange.h"
#include "http/socket_io.h"
#include "http/stream_loop.h"
#include "http/worker_pool.h"

namespace abx::kernel {
namespace {

using Clock = std::chrono::steady_clock;

// Requests for the core group (health, ready, capabilities) run in a lane of
// their own, so a liveness probe never waits behind busy workers.
constexpr std::size_t kProbeThreads = 2;
// Connections beyond the caps that may still ask for a probe; more are closed at once.
constexpr std::size_t kOverCapConnections = 1024;
constexpr std::chrono::seconds kOverCapTimeout{2};
constexpr std::size_t kReadChunk = 16 * 1024;
constexpr auto kTick = std::chrono::milliseconds(200);
// How many steps of niceness the loop runs above the server's other threads.
constexpr int kLoopRaise = 5;
// A request head's bounds: its bytes through the blank line, and its fields.
constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::size_t kMaxHeaderFields = 200;

/** A small answer written without waiting (the socket is non-blocking); then the caller closes. */
void refuse(int fd, int status, std::string_view message, std::string_view type,
            int retry_after = 0) {
  const std::string body = sdk::Response::error(status, message, type).body;
  std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + std::string(sdk::reasonPhrase(status)) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n";
  if (retry_after > 0) head += "Retry-After: " + std::to_string(retry_after) + "\r\n";
  head += "\r\n";
  std::string all = head + body;
  ssize_t ignored = ::send(fd, all.data(), all.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)ignored;
}

}  // namespace

class HttpServer::Loop {
 public:
  Loop(const Pipeline& pipeline, SseHub& hub, int threads, ConnectionLimits limits,
       const KernelMetrics* metrics)
      : pipeline_(pipeline),
        hub_(hub),
        limits_(limits),
        metrics_(metrics),
        workers_(static_cast<std::size_t>(threads), static_cast<std::size_t>(threads) * 16,
                 "abx-http-worker"),
        probes_(kProbeThreads, 1024, "abx-http-probe"),
        epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
        wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        streams_(
            hub, [this](const ConnectionPtr& c) { release(c); }, limits_.io_timeout,
            metrics ? &metrics->streams_open.labels({"loop"}) : nullptr) {
    setIoTimeout(limits_.io_timeout);
  }

  ~Loop() {
    stop_ = true;
    wake();
    if (thread_.joinable()) thread_.join();
    workers_.stop();
    probes_.stop();
    for (auto& [fd, c] : parked_) ::close(fd);
    streams_.stop();
    for (int fd : {listen_fd_, epoll_fd_, wake_fd_})
      if (fd >= 0) ::close(fd);
  }

  int listen(const std::string& host, int port) {
    listen_fd_ = openListener(host, port);
    watch(listen_fd_, EPOLLIN);
    watch(wake_fd_, EPOLLIN);
    thread_ = std::thread([this] { run(); });
    return boundPort(listen_fd_);
  }

  void drain(std::chrono::milliseconds timeout) {
    draining_ = true;
    streams_.drain();
    hub_.closeAll();
    wake();
    auto deadline = Clock::now() + timeout;
    while (in_flight_.load() > 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

 private:
  void watch(int fd, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }

  void wake() {
    std::uint64_t one = 1;
    if (wake_fd_ >= 0) {
      ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
      (void)ignored;
    }
  }

  void run() {
    pthread_setname_np(pthread_self(), "abx-http-loop");
    // Every connection waits on this one thread: when clients and children
    // compete for the CPUs, it should not be the one that waits. Raising its
    // priority needs CAP_SYS_NICE; without it the thread keeps the server's.
    // The threads it starts put their niceness back (WorkerPool).
    const auto self = static_cast<id_t>(::gettid());
    ::setpriority(PRIO_PROCESS, self,
                  std::max(::getpriority(PRIO_PROCESS, self) - kLoopRaise, -20));
    std::vector<epoll_event> events(256);
    bool drained = false;
    while (!stop_) {
      int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                           static_cast<int>(kTick.count()));
      for (int i = 0; i < n; ++i) {
        int fd = events[static_cast<std::size_t>(i)].data.fd;
        if (fd == listen_fd_) {
          acceptAll();
        } else if (fd == wake_fd_) {
          std::uint64_t count;
          ssize_t ignored = ::read(wake_fd_, &count, sizeof count);
          (void)ignored;
          adoptHandedBack();
        } else if (auto it = parked_.find(fd); it != parked_.end()) {
          readFrom(it->second);
        }
      }
      if (draining_ && !drained) {
        drained = true;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        ::close(std::exchange(listen_fd_, -1));
        while (!parked_.empty()) close(parked_.begin()->second);
      }
      sweep();
    }
  }

  void acceptAll() {
    while (true) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) outOfDescriptors();
        return;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_shared<Connection>();
      c->fd = fd;
      c->peer = socketAddress(fd, true);
      if (metrics_) metrics_->connections_accepted.inc();
      if (!admitPeer(c)) {
        count("too_many_connections");
        ::close(fd);
        continue;
      }
      if (metrics_) metrics_->connections_open.inc();
      park(c);
    }
  }

  /** Counts @p c against the caps; beyond them it may only ask for a probe. */
  bool admitPeer(const ConnectionPtr& c) {
    std::lock_guard lock(peers_mutex_);
    auto& count = per_peer_[c->peer];
    if (open_ >= limits_.max_connections || count >= limits_.max_per_peer) {
      if (count == 0) per_peer_.erase(c->peer);
      if (over_cap_ >= kOverCapConnections) return false;
      c->over_cap = true;
      ++over_cap_;
      return true;
    }
    ++count;
    ++open_;
    return true;
  }

  void park(const ConnectionPtr& c) {
    c->in_head = !c->buffer.empty();
    c->deadline = Clock::now() + (c->over_cap  ? kOverCapTimeout
                                  : c->in_head ? limits_.head_timeout
                                               : limits_.idle_timeout);
    parked_[c->fd] = c;
    if (!c->watched) watch(c->fd, EPOLLIN | EPOLLRDHUP);
    c->watched = true;
    if (!c->buffer.empty()) dispatchIfComplete(c);  // a pipelined request already read
  }

  void readFrom(ConnectionPtr c) {
    char buffer[kReadChunk];
    ssize_t n = ::recv(c->fd, buffer, sizeof buffer, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      close(c);
      return;
    }
    if (n < 0) return;
    if (!c->in_head) {
      c->in_head = true;
      // The whole head, not per read.
      c->deadline = Clock::now() + (c->over_cap ? kOverCapTimeout : limits_.head_timeout);
    }
    c->buffer.append(buffer, static_cast<std::size_t>(n));
    dispatchIfComplete(c);
  }

  void dispatchIfComplete(const ConnectionPtr& c) {
    auto end = sdk::headEnd(std::string_view(c->buffer).substr(0, kMaxHeadBytes + 4));
    if (end == std::string::npos) {
      if (c->buffer.size() > kMaxHeadBytes) {
        count("head_too_large");
        refuse(c->fd, 431, "Request header fields too large", "ValueError");
        close(c);
      }
      return;
    }
    auto parsed =
        sdk::parseRequestHead(std::string_view(c->buffer).substr(0, end), kMaxHeaderFields);
    if (auto* error = std::get_if<sdk::HeadError>(&parsed)) {
      count("malformed_head");
      refuse(c->fd, error->status, error->message, "ValueError");
      close(c);
      return;
    }
    auto& head = std::get<sdk::RequestHead>(parsed);
    std::string rest = c->buffer.substr(end);
    c->buffer.clear();
    const Lane where = laneOf(head);
    if (where == Lane::loop) {
      answerOnLoop(c, std::move(head), std::move(rest));  // stays watched: no epoll_ctl
      return;
    }
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
    c->watched = false;
    parked_.erase(c->fd);
    const bool probe = where != Lane::workers;
    if (c->over_cap && !probe) {
      count("too_many_connections");
      refuse(c->fd, 503, "Too many connections; try again shortly", "ResourceError", 1);
      close(c);
      return;
    }
    WorkerPool& lane = probe ? probes_ : workers_;
    ++in_flight_;
    auto task = [this, c, h = std::move(head), r = std::move(rest)]() mutable {
      serve(c, std::move(h), std::move(r));
    };
    if (!lane.post(std::move(task))) {
      --in_flight_;
      count("workers_busy");
      refuse(c->fd, 503, "The server is busy; try again shortly", "ResourceError", 1);
      release(c);
    }
  }

  enum class Lane { workers, probes, loop };

  Lane laneOf(const sdk::RequestHead& head) const {
    const std::shared_ptr<const Dispatch> d = pipeline_.current();
    if (!d) return Lane::workers;
    const std::string path = Pipeline::normalisePath(head.target);
    auto match = d->routes->match(head.method, path);
    if (!match || match->route->owner != "core" || match->route->spec.streaming)
      return Lane::workers;
    // The liveness and readiness probes are a few microseconds of work: the
    // loop answers them itself rather than handing them to a thread and back.
    const bool bodiless =
        head.values("Content-Length").empty() && head.values("Transfer-Encoding").empty();
    if (bodiless && (path == "/health" || path == "/ready")) return Lane::loop;
    return Lane::probes;
  }

  // On the loop thread: never waits for the client. An answer that does not
  // fit in the socket's buffer (a client not reading its answers) ends it.
  void answerOnLoop(const ConnectionPtr& c, sdk::RequestHead head, std::string rest) {
    bool reusable = false;
    std::string leftover;
    {
      NoWaitScope no_wait;
      SocketExchange exchange(c->fd, std::move(head), std::move(rest), hub_);
      pipeline_.handle(exchange);
      reusable = exchange.reusable();
      leftover = exchange.takeLeftover();
    }
    if (reusable && !c->over_cap && !draining_ && !stop_) {
      c->buffer = std::move(leftover);
      park(c);
    } else {
      close(c);
    }
  }

  // On a worker: the request, then the connection goes back to the loop.
  void serve(const ConnectionPtr& c, sdk::RequestHead head, std::string rest) {
    if (head.minor_version >= 1) {
      for (auto expect : head.values("Expect"))
        if (expect == "100-continue") writeAll(c->fd, {"HTTP/1.1 100 Continue\r\n\r\n"});
    }
    SocketExchange exchange(c->fd, std::move(head), std::move(rest), hub_,
                            [this, c](SseWriter::Handoff handoff, std::shared_ptr<void> hold) {
                              if (draining_ || stop_) return std::shared_ptr<sdk::SseWaker>();
                              return streams_.adopt(c, std::move(handoff), std::move(hold));
                            });
    pipeline_.handle(exchange);
    if (exchange.detached()) {
      // The loop owns the connection now.
    } else if (exchange.reusable() && !c->over_cap && !draining_ && !stop_) {
      c->buffer = exchange.takeLeftover();
      {
        std::lock_guard lock(handback_mutex_);
        handed_back_.push_back(c);
      }
      wake();
    } else {
      release(c);
    }
    --in_flight_;
  }

  void adoptHandedBack() {
    std::vector<ConnectionPtr> back;
    {
      std::lock_guard lock(handback_mutex_);
      back.swap(handed_back_);
    }
    for (auto& c : back) {
      if (draining_)
        release(c);
      else
        park(c);
    }
  }

  /** A parked connection's end (the loop thread's). */
  void close(ConnectionPtr c) {
    if (c->fd < 0) return;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
    parked_.erase(c->fd);
    release(c);
  }

  /** Closes the socket and forgets the connection's share of the caps (any thread). */
  void release(const ConnectionPtr& c) {
    if (c->fd < 0) return;
    ::close(std::exchange(c->fd, -1));
    if (metrics_) metrics_->connections_open.dec();
    std::lock_guard lock(peers_mutex_);
    if (c->over_cap) {
      --over_cap_;
      return;
    }
    if (auto it = per_peer_.find(c->peer); it != per_peer_.end() && --it->second == 0)
      per_peer_.erase(it);
    --open_;
  }

  // Every waiting connection is told 503 and closed rather than left to
  // hang while the listening socket, still readable, spins the loop.
  void outOfDescriptors() {
    const bool reserve_held = reserve_.shed(listen_fd_, [this](int fd) {
      count("out_of_descriptors");
      refuse(fd, 503, "The server has no file descriptor left; try again shortly", "ResourceError",
             1);
      ::close(fd);
    });
    if (!reserve_held) listenFor(0);  // until a sweep takes the reserve back
  }

  void listenFor(std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = listen_fd_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &ev);
    accepting_ = events != 0;
  }

  void count(std::string_view reason) const {
    if (metrics_) metrics_->refused(reason);
  }

  void sweep() {
    auto now = Clock::now();
    if (now - last_sweep_ < kTick) return;
    last_sweep_ = now;
    if (!accepting_ && listen_fd_ >= 0 && reserve_.retake()) listenFor(EPOLLIN);
    std::vector<ConnectionPtr> expired;
    for (auto& [fd, c] : parked_)
      if (now >= c->deadline) expired.push_back(c);
    for (auto& c : expired) {
      // A head that did not arrive in time gets told why; an idle one just ends.
      if (c->in_head) {
        count("head_timeout");
        refuse(c->fd, 408, "Request headers not received in time", "TimeoutError");
      }
      close(c);
    }
  }

  const Pipeline& pipeline_;
  SseHub& hub_;
  const ConnectionLimits limits_;
  const KernelMetrics* const metrics_;
  WorkerPool workers_;
  WorkerPool probes_;
  int listen_fd_ = -1;
  DescriptorReserve reserve_;
  bool accepting_ = true;
  const int epoll_fd_;
  const int wake_fd_;
  std::thread thread_;
  std::unordered_map<int, ConnectionPtr> parked_;  // the loop thread's only
  std::mutex handback_mutex_;
  std::vector<ConnectionPtr> handed_back_;
  std::mutex peers_mutex_;
  std::unordered_map<std::string, std::size_t> per_peer_;
  std::size_t open_ = 0;      // under peers_mutex_
  std::size_t over_cap_ = 0;  // under peers_mutex_
  std::atomic<std::size_t> in_flight_{0};
  Clock::time_point last_sweep_{};
  std::atomic<bool> draining_{false};
  std::atomic<bool> stop_{false};
  StreamLoop streams_;  // last: its streams release into the caps above
};

HttpServer::HttpServer(const Pipeline& pipeline, SseHub& hub, int max_threads,
                       ConnectionLimits limits, const KernelMetrics* metrics)
    : loop_(std::make_unique<Loop>(pipeline, hub, std::max(2, max_threads), limits, metrics)) {}

HttpServer::~HttpServer() = default;

int HttpServer::listen(const std::string& host, int port) { return loop_->listen(host, port); }

void HttpServer::drain(std::chrono::milliseconds timeout) { loop_->drain(timeout); }

}  // namespace abx::kernel
