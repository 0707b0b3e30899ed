#include "ws_bridge.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "ws_link.h"

namespace abx::plugins::terminal {
namespace {

using Clock = std::chrono::steady_clock;

// An epoll key: the entry's id shifted left, and which of its fds — a
// link's socket, PTY master or shell pidfd, or the socket of a connection
// still in its handshake. Key 0 is the wake-up eventfd, 1 the listening
// socket (ids start at 1, so no entry's key is either).
constexpr int kSocket = 0, kMaster = 1, kExit = 2, kHandshake = 3, kLinkKinds = 3;
constexpr std::uint64_t kWake = 0, kListen = 1;
/** Connections accepted per readiness of the listening socket, so a flood cannot starve the rest.
 */
constexpr int kAcceptsPerTurn = 64;
/** How long accepting pauses when the process is out of descriptors. */
constexpr std::chrono::milliseconds kAcceptPause{100};

/** The IP address @p fd's connection arrived on. */
std::string localAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  char text[INET6_ADDRSTRLEN] = {};
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  if (addr.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, text, sizeof text);
  else if (addr.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, text, sizeof text);
  return text;
}

}  // namespace

struct BridgeLoop::LinkEntry {
  std::uint64_t id = 0;
  std::unique_ptr<WsLink> link;
  std::uint32_t registered[kLinkKinds] = {0, 0, 0};
};

struct BridgeLoop::HandshakeEntry {
  HandshakeEntry(std::uint64_t id, int fd, Clock::time_point deadline,
                 std::chrono::milliseconds close_wait)
      : id(id), handshake(fd, deadline, close_wait) {}
  std::uint64_t id;
  WsHandshake handshake;
  std::uint32_t registered = 0;
};

BridgeLoop::BridgeLoop(BridgeOptions options, HandshakeJudge judge)
    : options_(options), judge_(std::move(judge)) {}

BridgeLoop::~BridgeLoop() { stop(); }

bool BridgeLoop::start(int listen_fd) {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) {
    ::close(listen_fd);
    return false;
  }
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event wake{}, listen{};
  wake.events = listen.events = EPOLLIN;
  wake.data.u64 = kWake;
  listen.data.u64 = kListen;
  if (epoll_fd_ >= 0 && wake_fd_ >= 0 &&
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake) == 0 &&
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd, &listen) == 0) {
    listen_fd_ = listen_fd;
    stop_ = false;
    try {
      thread_ = std::thread([this] { run(); });
      // Named here, not by the thread: it carries its name (ps -L, top -H)
      // from the moment the port listens.
      ::pthread_setname_np(thread_.native_handle(), "abx-pty-bridge");
      return true;
    } catch (const std::system_error&) {
    }
  }
  ::close(listen_fd);
  listen_fd_ = -1;
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
  return false;
}

void BridgeLoop::stop() noexcept {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    stop_ = true;
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
    thread = std::move(thread_);
  }
  thread.join();
  std::lock_guard lock(mutex_);
  ::close(epoll_fd_);
  ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
}

void BridgeLoop::run() noexcept {
  auto next_tick = Clock::now();
  while (turn(next_tick)) {
  }
  closeListener();
  handshakes_in_progress_.clear();
  links_.clear();
  size_ = 0;
  handshakes_ = 0;
}

/** One wait and what it brought. @return false when stopped and every connection is closed. */
bool BridgeLoop::turn(Clock::time_point& next_tick) noexcept {
  const bool stopping = stop_.load();
  if (stopping) {
    closeListener();
    // A head still arriving will not be answered; answers being written
    // and closing handshakes finish (within close_wait).
    for (auto& entry : handshakes_in_progress_)
      if (entry->handshake.reading()) entry->handshake.drop();
    reap();
    if (links_.empty() && handshakes_in_progress_.empty()) return false;
  }
  epoll_event events[64];
  const int n = ::epoll_wait(epoll_fd_, events, 64, waitMillis(stopping, next_tick));
  for (int i = 0; i < n; ++i) dispatch(events[i].data.u64, events[i].events);
  timers(stopping, next_tick);
  reap();
  return true;
}

void BridgeLoop::dispatch(std::uint64_t key, std::uint32_t events) noexcept {
  if (key == kWake) {
    std::uint64_t count;
    [[maybe_unused]] auto r = ::read(wake_fd_, &count, sizeof count);
    return;
  }
  if (key == kListen) return acceptAll();
  const std::uint64_t id = key >> 2;
  const int kind = static_cast<int>(key & 3);
  if (kind == kHandshake) {
    auto it = std::find_if(handshakes_in_progress_.begin(), handshakes_in_progress_.end(),
                           [&](const auto& e) { return e->id == id; });
    if (it == handshakes_in_progress_.end()) return;
    HandshakeEntry& entry = **it;
    try {
      entry.handshake.onSocket(events);
    } catch (...) {
      entry.handshake.drop();
    }
    if (entry.handshake.judging()) decide(entry);
    return sync(entry);
  }
  auto it = std::find_if(links_.begin(), links_.end(), [&](const auto& e) { return e->id == id; });
  if (it != links_.end()) serve(**it, kind, events);
}

void BridgeLoop::acceptAll() noexcept {
  for (int i = 0; i < kAcceptsPerTurn && listen_fd_ >= 0; ++i) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      try {
        admit(fd);
      } catch (...) {
        ::close(fd);
      }
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    // Out of descriptors or memory: the pending connection stays in the
    // backlog, and the listening socket would wake the loop at once again.
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
      pauseListener(true);
    return;
  }
}

/** A new connection starts its handshake; at the cap, the oldest one unfinished makes room. */
void BridgeLoop::admit(int fd) {
  std::size_t open = 0;
  HandshakeEntry* oldest = nullptr;
  for (auto& entry : handshakes_in_progress_) {
    if (entry->handshake.done()) continue;
    ++open;
    if (!oldest) oldest = entry.get();  // accepted first: the vector keeps accept order
  }
  if (open >= options_.max_handshakes && oldest) {
    oldest->handshake.drop();
    sync(*oldest);
  }
  auto entry = std::make_unique<HandshakeEntry>(
      next_id_++, fd, Clock::now() + options_.handshake_timeout, options_.close_wait);
  sync(*entry);
  handshakes_in_progress_.push_back(std::move(entry));
  handshakes_ = handshakes_in_progress_.size();
}

void BridgeLoop::decide(HandshakeEntry& entry) noexcept {
  HandshakeDecision decision;
  try {
    if (stop_) {
      decision.answer =
          httpAnswer(sdk::Response::error(503, "The PTY service is stopping", "RuntimeError"));
    } else {
      decision = judge_(*entry.handshake.judging(), localAddress(entry.handshake.fd()));
    }
    if (decision.kind != HandshakeDecision::Kind::attach || !decision.session)
      return entry.handshake.answer(decision);
    // The socket moves to a link, under a key of its own.
    if (entry.registered != 0) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, entry.handshake.fd(), nullptr);
    entry.registered = 0;
    attach(entry.handshake.upgrade(decision), decision.session);
  } catch (...) {
    entry.handshake.drop();
  }
}

void BridgeLoop::attach(UpgradedSocket socket, const std::shared_ptr<Session>& session) {
  auto entry = std::make_unique<LinkEntry>();
  entry->id = next_id_++;
  const int fd = socket.fd;
  const std::uint64_t attachment = session->attach();
  try {
    entry->link = std::make_unique<WsLink>(std::move(socket), session, attachment, options_);
  } catch (...) {
    session->detach(attachment);
    ::close(fd);
    return;
  }
  try {
    entry->link->begin();
  } catch (...) {
    entry->link->abort();
  }
  sync(*entry);
  links_.push_back(std::move(entry));
  size_ = links_.size();
}

void BridgeLoop::serve(LinkEntry& entry, int kind, std::uint32_t events) noexcept {
  WsLink& link = *entry.link;
  if (link.done()) return;
  try {
    if (kind == kSocket) link.onSocket(events);
    if (kind == kMaster) link.onMaster(events);
    if (kind == kExit) link.onExit();
  } catch (...) {
    link.abort();
  }
  sync(entry);
}

/** Registers each fd of the link for what it wants now; an fd that wants nothing is removed. */
void BridgeLoop::sync(LinkEntry& entry) noexcept {
  WsLink& link = *entry.link;
  if (link.done()) return unregister(entry);
  const int fds[kLinkKinds] = {link.socketFd(), link.masterFd(), link.exitFd()};
  const std::uint32_t wanted[kLinkKinds] = {link.socketInterest(), link.masterInterest(),
                                            link.exitInterest()};
  for (int kind = 0; kind < kLinkKinds; ++kind) {
    if (fds[kind] < 0 || wanted[kind] == entry.registered[kind]) continue;
    epoll_event event{};
    event.events = wanted[kind];
    event.data.u64 = (entry.id << 2) | static_cast<std::uint64_t>(kind);
    const int op = wanted[kind] == 0             ? EPOLL_CTL_DEL
                   : entry.registered[kind] == 0 ? EPOLL_CTL_ADD
                                                 : EPOLL_CTL_MOD;
    if (::epoll_ctl(epoll_fd_, op, fds[kind], &event) != 0 && op != EPOLL_CTL_DEL) {
      link.abort();
      return unregister(entry);
    }
    entry.registered[kind] = wanted[kind];
  }
}

void BridgeLoop::sync(HandshakeEntry& entry) noexcept {
  const int fd = entry.handshake.fd();
  const std::uint32_t wanted = entry.handshake.interest();
  if (fd < 0 || wanted == entry.registered) return;
  epoll_event event{};
  event.events = wanted;
  event.data.u64 = (entry.id << 2) | static_cast<std::uint64_t>(kHandshake);
  const int op = wanted == 0             ? EPOLL_CTL_DEL
                 : entry.registered == 0 ? EPOLL_CTL_ADD
                                         : EPOLL_CTL_MOD;
  if (::epoll_ctl(epoll_fd_, op, fd, &event) != 0 && op != EPOLL_CTL_DEL) {
    entry.handshake.drop();
    return sync(entry);
  }
  entry.registered = wanted;
}

/** Before the link's fds close: the PTY ones are duplicates, which epoll would otherwise keep. */
void BridgeLoop::unregister(LinkEntry& entry) noexcept {
  const int fds[kLinkKinds] = {entry.link->socketFd(), entry.link->masterFd(),
                               entry.link->exitFd()};
  for (int kind = 0; kind < kLinkKinds; ++kind) {
    if (entry.registered[kind] == 0) continue;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fds[kind], nullptr);
    entry.registered[kind] = 0;
  }
}

void BridgeLoop::closeListener() noexcept {
  if (listen_fd_ < 0) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
  ::close(listen_fd_);
  listen_fd_ = -1;
  listen_paused_until_.reset();
}

void BridgeLoop::pauseListener(bool paused) noexcept {
  if (listen_fd_ < 0) return;
  epoll_event event{};
  event.events = paused ? 0u : std::uint32_t{EPOLLIN};
  event.data.u64 = kListen;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &event);
  if (paused)
    listen_paused_until_ = Clock::now() + kAcceptPause;
  else
    listen_paused_until_.reset();
}

/**
 * Every link's timers once per tick (and while stopping); between ticks
 * only those with a drain or close deadline that has come. Handshake
 * deadlines every turn (a comparison each).
 */
void BridgeLoop::timers(bool stopping, Clock::time_point& next_tick) noexcept {
  const auto now = Clock::now();
  const bool all = stopping || now >= next_tick;
  if (all) next_tick = now + options_.tick;
  for (auto& entry : links_) {
    const auto at = entry->link->deadline();
    if (!all && !(at && *at <= now)) continue;
    try {
      entry->link->tick(stopping, now);
    } catch (...) {
      entry->link->abort();
    }
    sync(*entry);
  }
  for (auto& entry : handshakes_in_progress_) {
    entry->handshake.tick(now);
    sync(*entry);
  }
  if (listen_paused_until_ && now >= *listen_paused_until_) pauseListener(false);
}

void BridgeLoop::reap() noexcept {
  std::erase_if(links_, [this](std::unique_ptr<LinkEntry>& entry) {
    if (!entry->link->done()) return false;
    unregister(*entry);
    return true;
  });
  std::erase_if(handshakes_in_progress_, [this](std::unique_ptr<HandshakeEntry>& entry) {
    if (!entry->handshake.done()) return false;
    sync(*entry);  // unregistered before its socket closes
    return true;
  });
  size_ = links_.size();
  handshakes_ = handshakes_in_progress_.size();
}

int BridgeLoop::waitMillis(bool stopping, Clock::time_point next_tick) const {
  // Nobody to serve: sleep until a connection or stop() wakes the loop.
  if (!stopping && links_.empty() && handshakes_in_progress_.empty() && !listen_paused_until_)
    return -1;
  const auto now = Clock::now();
  auto wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next_tick - now),
                         std::chrono::milliseconds(0), options_.tick);
  auto until = [&](Clock::time_point at) {
    wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(at - now),
                      std::chrono::milliseconds(0), wait);
  };
  for (const auto& entry : links_)
    if (auto at = entry->link->deadline()) until(*at);
  for (const auto& entry : handshakes_in_progress_) until(entry->handshake.deadline());
  if (listen_paused_until_) until(*listen_paused_until_);
  return static_cast<int>(wait.count());
}

}  // namespace abx::plugins::terminal
