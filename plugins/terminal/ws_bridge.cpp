#include "ws_bridge.h"

#include <Poco/Buffer.h>
#include <Poco/Exception.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <system_error>

#include "ws_link.h"

namespace abx::plugins::terminal {
namespace {

using Poco::Net::WebSocket;
using Clock = std::chrono::steady_clock;

// An epoll key: the link's id shifted left, and which of its fds (kSocket,
// kMaster, kExit); 0 is the wake-up eventfd.
constexpr int kSocket = 0, kMaster = 1, kExit = 2, kKinds = 3;
constexpr std::uint64_t kWake = 0;

}  // namespace

struct BridgeLoop::Entry {
  std::uint64_t id = 0;
  std::unique_ptr<WsLink> link;
  std::uint32_t registered[kKinds] = {0, 0, 0};
};

BridgeLoop::BridgeLoop(BridgeOptions options) : options_(options) {}

BridgeLoop::~BridgeLoop() { stop(); }

bool BridgeLoop::adopt(std::unique_ptr<WebSocket>& ws, const std::shared_ptr<Session>& session) {
  std::lock_guard lock(mutex_);
  if (closed_ || (!thread_.joinable() && !startThread())) return false;
  const std::uint64_t attachment = session->attach();
  incoming_.push_back(std::make_unique<WsLink>(std::move(ws), session, attachment, options_));
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
  return true;
}

/** Called with mutex_ held. */
bool BridgeLoop::startThread() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.u64 = kWake;
  if (epoll_fd_ >= 0 && wake_fd_ >= 0 &&
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake) == 0) {
    try {
      thread_ = std::thread([this] { run(); });
      // Named here, not by the thread: it carries its name (ps -L, top -H)
      // from the moment the first terminal is served.
      ::pthread_setname_np(thread_.native_handle(), "abx-pty-bridge");
      return true;
    } catch (const std::system_error&) {
    }
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
  return false;
}

void BridgeLoop::stop() noexcept {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    if (!thread_.joinable()) return;
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

void BridgeLoop::reopen() {
  std::lock_guard lock(mutex_);
  closed_ = false;
}

void BridgeLoop::run() noexcept {
  std::vector<std::unique_ptr<Entry>> entries;
  std::uint64_t next_id = 1;
  auto next_tick = Clock::now();
  epoll_event events[64];
  while (true) {
    std::vector<std::unique_ptr<WsLink>> arrived;
    bool stopping = false;
    {
      std::lock_guard lock(mutex_);
      arrived.swap(incoming_);
      stopping = closed_;
      // closed_ is set under the lock, so nothing can arrive after this.
      if (stopping && arrived.empty() && entries.empty()) break;
    }
    for (auto& link : arrived) {
      auto entry = std::make_unique<Entry>();
      entry->id = next_id++;
      entry->link = std::move(link);
      try {
        entry->link->begin();
      } catch (...) {
        entry->link->abort();
      }
      entries.push_back(std::move(entry));
    }
    for (auto& entry : entries) sync(*entry);
    size_ = entries.size();

    const int n = ::epoll_wait(epoll_fd_, events, 64, waitMillis(entries, next_tick));
    for (int i = 0; i < n; ++i) {
      const std::uint64_t key = events[i].data.u64;
      if (key == kWake) {
        std::uint64_t count;
        [[maybe_unused]] auto r = ::read(wake_fd_, &count, sizeof count);
        continue;
      }
      auto it = std::find_if(entries.begin(), entries.end(),
                             [&](const auto& e) { return e->id == key >> 2; });
      if (it != entries.end()) serve(**it, static_cast<int>(key & 3), events[i].events);
    }
    // Every link's timers once per tick (and while stopping); between ticks
    // only those with a drain or close deadline that has come.
    const auto now = Clock::now();
    const bool all = stopping || now >= next_tick;
    if (all) next_tick = now + options_.tick;
    for (auto& entry : entries) {
      const auto at = entry->link->deadline();
      if (!all && !(at && *at <= now)) continue;
      try {
        entry->link->tick(stopping, now);
      } catch (...) {
        entry->link->abort();
      }
      sync(*entry);
    }
    std::erase_if(entries, [this](std::unique_ptr<Entry>& entry) {
      if (!entry->link->done()) return false;
      unregister(*entry);
      return true;
    });
    size_ = entries.size();
  }
}

void BridgeLoop::serve(Entry& entry, int kind, std::uint32_t events) noexcept {
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
void BridgeLoop::sync(Entry& entry) noexcept {
  WsLink& link = *entry.link;
  if (link.done()) return unregister(entry);
  const int fds[kKinds] = {link.socketFd(), link.masterFd(), link.exitFd()};
  const std::uint32_t wanted[kKinds] = {link.socketInterest(), link.masterInterest(),
                                        link.exitInterest()};
  for (int kind = 0; kind < kKinds; ++kind) {
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

/** Before the link's fds close: the PTY ones are duplicates, which epoll would otherwise keep. */
void BridgeLoop::unregister(Entry& entry) noexcept {
  const int fds[kKinds] = {entry.link->socketFd(), entry.link->masterFd(), entry.link->exitFd()};
  for (int kind = 0; kind < kKinds; ++kind) {
    if (entry.registered[kind] == 0) continue;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fds[kind], nullptr);
    entry.registered[kind] = 0;
  }
}

int BridgeLoop::waitMillis(const std::vector<std::unique_ptr<Entry>>& entries,
                           std::chrono::steady_clock::time_point next_tick) const {
  const auto now = Clock::now();
  auto wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next_tick - now),
                         std::chrono::milliseconds(0), options_.tick);
  for (const auto& entry : entries) {
    if (auto at = entry->link->deadline()) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*at - now);
      wait = std::clamp(left, std::chrono::milliseconds(0), wait);
    }
  }
  return static_cast<int>(wait.count());
}

void closeWebSocket(WebSocket& ws, std::uint16_t code, std::string_view reason,
                    std::chrono::milliseconds wait) {
  try {
    ws.shutdown(code, std::string(reason));
    ws.setReceiveTimeout(Poco::Timespan(static_cast<long>(wait.count()) * 1000));
    Poco::Buffer<char> sink(0);
    const auto deadline = Clock::now() + wait;
    while (Clock::now() < deadline) {
      sink.resize(0);
      int flags = 0;
      const int n = ws.receiveFrame(sink, flags);
      if ((n == 0 && flags == 0) ||
          (flags & WebSocket::FRAME_OP_BITMASK) == WebSocket::FRAME_OP_CLOSE)
        break;
    }
  } catch (const std::exception&) {
    // The client went away first: nothing left to close politely.
  }
}

}  // namespace abx::plugins::terminal
