#include "http/stream_loop.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

namespace abx::kernel {
namespace {
constexpr auto kTick = std::chrono::milliseconds(200);
}

StreamLoop::StreamLoop(SseHub& hub, std::function<void(const ConnectionPtr&)> release,
                       std::chrono::milliseconds stall_limit, sdk::GaugeCell* open_streams)
    : hub_(hub),
      stall_limit_(stall_limit),
      nice_(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()))),
      epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      streams_(
          epoll_fd_, [this] { wake(); }, std::move(release), open_streams) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
}

StreamLoop::~StreamLoop() {
  stop();
  for (int fd : {epoll_fd_, wake_fd_})
    if (fd >= 0) ::close(fd);
}

std::shared_ptr<sdk::SseWaker> StreamLoop::adopt(const ConnectionPtr& c, SseWriter::Handoff handoff,
                                                 std::shared_ptr<void> hold) {
  if (stop_) return nullptr;
  std::call_once(started_, [this] { thread_ = std::thread([this] { run(); }); });
  return streams_.adopt(c, std::move(handoff), std::move(hold));
}

void StreamLoop::drain() {
  streams_.refuseNew();
  draining_ = true;
  wake();
}

void StreamLoop::stop() {
  streams_.refuseNew();
  stop_ = true;
  wake();
  // Once stop_ is set no adopt() starts the thread, so a join here is final.
  std::call_once(started_, [] {});
  if (thread_.joinable()) thread_.join();
  streams_.closeAll(/*finish=*/false);
}

void StreamLoop::wake() {
  std::uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
  (void)ignored;
}

void StreamLoop::run() {
  pthread_setname_np(pthread_self(), "abx-http-stream");
  // The worker that started it may run at another niceness than the server.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice_);
  std::vector<epoll_event> events(256);
  while (!stop_) {
    int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                         static_cast<int>(kTick.count()));
    for (int i = 0; i < n; ++i) {
      const epoll_event& event = events[static_cast<std::size_t>(i)];
      if (event.data.fd == wake_fd_) {
        std::uint64_t count;
        ssize_t ignored = ::read(wake_fd_, &count, sizeof count);
        (void)ignored;
        streams_.pumpScheduled();
      } else {
        streams_.onEvent(event.data.fd, event.events);
      }
    }
    if (draining_) streams_.closeAll(/*finish=*/true);
    sweep();
  }
}

void StreamLoop::sweep() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_sweep_ < kTick) return;
  last_sweep_ = now;
  streams_.pingIdle(now, hub_.pingInterval());
  // A stream's client that stopped reading is held no longer than a
  // worker's blocking write would be.
  streams_.closeStalled(now, stall_limit_);
}

}  // namespace abx::kernel
