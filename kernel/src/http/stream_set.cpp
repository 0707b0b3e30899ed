#include "http/stream_set.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

namespace abx::kernel {

StreamSet::StreamSet(int epoll_fd, std::function<void()> wake,
                     std::function<void(const ConnectionPtr&)> release,
                     sdk::GaugeCell* open_streams)
    : epoll_fd_(epoll_fd),
      wake_(std::move(wake)),
      release_(std::move(release)),
      open_streams_(open_streams) {}

std::shared_ptr<sdk::SseWaker> StreamSet::adopt(const ConnectionPtr& c, SseWriter::Handoff handoff,
                                                std::shared_ptr<void> hold) {
  auto stream =
      std::make_shared<LoopStream>(c->fd, std::move(handoff.unsent_head), std::move(handoff.feed),
                                   handoff.chunked, std::move(hold), *this);
  bool was_idle;
  {
    std::lock_guard lock(mutex_);
    if (refusing_) return nullptr;
    was_idle = ready_.empty() && adopting_.empty();
    adopting_.push_back({c, stream});
  }
  if (was_idle) wake_();
  return stream;
}

void StreamSet::schedule(std::shared_ptr<LoopStream> stream) {
  bool was_idle;
  {
    std::lock_guard lock(mutex_);
    was_idle = ready_.empty() && adopting_.empty();
    ready_.push_back(std::move(stream));
  }
  if (was_idle) wake_();
}

void StreamSet::refuseNew() {
  std::lock_guard lock(mutex_);
  refusing_ = true;
}

void StreamSet::pumpScheduled() {
  std::vector<Entry> adopted;
  std::vector<std::shared_ptr<LoopStream>> ready;
  {
    std::lock_guard lock(mutex_);
    adopted.swap(adopting_);
    ready.swap(ready_);
  }
  for (auto& entry : adopted) {
    const int fd = entry.connection->fd;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    if (open_streams_) open_streams_->inc();
    pump(streams_[fd] = std::move(entry));
  }
  for (auto& stream : ready)
    if (auto it = streams_.find(stream->fd()); it != streams_.end() && it->second.stream == stream)
      pump(it->second);
}

void StreamSet::pump(Entry& e) {
  switch (e.stream->pump()) {
    case LoopStream::Next::close:
      close(e);
      return;
    case LoopStream::Next::wait_for_socket:
      watchWritable(e, true);
      return;
    case LoopStream::Next::wait_for_wake:
      watchWritable(e, false);
      return;
    case LoopStream::Next::again:
      watchWritable(e, false);
      e.stream->wake();
      return;
  }
}

void StreamSet::watchWritable(Entry& e, bool on) {
  if (e.out_armed == on) return;
  e.out_armed = on;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0u);
  ev.data.fd = e.connection->fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, e.connection->fd, &ev);
}

bool StreamSet::onEvent(int fd, std::uint32_t what) {
  auto it = streams_.find(fd);
  if (it == streams_.end()) return false;
  Entry& e = it->second;
  // A hang-up is noticed here, not at the next write: the feed lets go at once.
  if (what & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) {
    close(e);
    return true;
  }
  if (what & EPOLLIN) {
    // A stream's client has nothing more to say: what it sends is dropped.
    char scratch[4096];
    ssize_t n = ::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      close(e);
      return true;
    }
  }
  if (what & EPOLLOUT) pump(e);
  return true;
}

void StreamSet::pingIdle(std::chrono::steady_clock::time_point now,
                         std::chrono::milliseconds interval) {
  std::vector<int> idle;
  for (auto& [fd, e] : streams_)
    if (e.stream->idleFor(now, interval)) idle.push_back(fd);
  for (int fd : idle)
    if (auto it = streams_.find(fd); it != streams_.end()) {
      it->second.stream->queuePing();
      pump(it->second);
    }
}

int StreamSet::closeStalled(std::chrono::steady_clock::time_point now,
                            std::chrono::milliseconds limit) {
  std::vector<int> stalled;
  for (auto& [fd, e] : streams_)
    if (e.stream->stalledFor(now, limit)) stalled.push_back(fd);
  for (int fd : stalled)
    if (auto it = streams_.find(fd); it != streams_.end()) {
      // A reset drops what the kernel still holds for the client; a plain
      // close would keep it (and the socket) until the peer's window opens.
      const linger abort{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
      close(it->second);
    }
  return static_cast<int>(stalled.size());
}

void StreamSet::closeAll(bool finish) {
  while (!streams_.empty()) {
    if (finish) streams_.begin()->second.stream->finishNow();
    close(streams_.begin()->second);
  }
  std::vector<Entry> adopted;
  {
    std::lock_guard lock(mutex_);
    adopted.swap(adopting_);
    ready_.clear();
  }
  for (auto& entry : adopted) {
    entry.stream->closed();
    release_(entry.connection);
  }
}

void StreamSet::close(Entry& e) {
  auto connection = e.connection;
  auto stream = e.stream;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection->fd, nullptr);
  if (streams_.erase(connection->fd) && open_streams_) open_streams_->dec();
  stream->closed();
  release_(connection);
}

}  // namespace abx::kernel
