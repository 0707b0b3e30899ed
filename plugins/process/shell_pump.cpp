#include "shell_pump.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <system_error>
#include <utility>

namespace abx::plugins::process {
namespace {

// epoll keys: 0 is the inbox; a job's are (id << 1), and (id << 1) | 1 for its pidfd.
constexpr std::uint64_t kInboxKey = 0;
constexpr int kEventsPerWait = 64;

bool contains(const std::vector<int>& fds, int fd) {
  return std::find(fds.begin(), fds.end(), fd) != fds.end();
}

sdk::HttpError shuttingDown() {
  return sdk::HttpError{503, "The server is shutting down", "RuntimeError", {}};
}

}  // namespace

/**
 * What other threads hand the pump: new jobs, pokes, the stop. Shared with
 * the feeds' pokes, which may outlive the pump.
 */
struct ShellPump::Inbox {
  std::mutex mutex;
  struct Added {
    std::uint64_t id;
    std::unique_ptr<StreamJob> job;
  };
  std::vector<Added> added;
  std::vector<std::uint64_t> poked;
  bool stop = false;
  std::chrono::milliseconds stop_grace{0};
  std::uint64_t last_id = 0;
  int event_fd = -1;

  ~Inbox() {
    if (event_fd >= 0) ::close(event_fd);
  }
  void signal() const {
    const std::uint64_t one = 1;
    if (event_fd >= 0) {
      const ssize_t ignored = ::write(event_fd, &one, sizeof one);
      (void)ignored;
    }
  }
  /** Under mutex: true when nothing was waiting, so the pump needs a signal. */
  bool idle() const { return added.empty() && poked.empty() && !stop; }
};

ShellPump::ShellPump() : inbox_(std::make_shared<Inbox>()) {}

ShellPump::~ShellPump() {
  stop();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

std::optional<sdk::HttpError> ShellPump::ready() {
  std::lock_guard lock(start_mutex_);
  if (stopped_) return shuttingDown();
  if (thread_.joinable()) return std::nullopt;
  if (epoll_fd_ < 0) epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (inbox_->event_fd < 0) inbox_->event_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || inbox_->event_fd < 0)
    return sdk::HttpError{500, "Cannot watch streamed commands", "OSError", {}};
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kInboxKey;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, inbox_->event_fd, &ev) != 0 && errno != EEXIST)
    return sdk::HttpError{500, "Cannot watch streamed commands", "OSError", {}};
  try {
    thread_ = std::thread([this] { run(); });
    // Named before anyone can look: the name says whose thread it is.
    ::pthread_setname_np(thread_.native_handle(), "abx-shell-pump");
  } catch (const std::system_error&) {
    return sdk::HttpError{500, "Cannot start the thread of streamed commands", "OSError", {}};
  }
  return std::nullopt;
}

std::uint64_t ShellPump::nextId() {
  std::lock_guard lock(inbox_->mutex);
  return ++inbox_->last_id;
}

std::function<void()> ShellPump::poker(std::uint64_t id) {
  return [inbox = std::weak_ptr<Inbox>(inbox_), id] {
    auto in = inbox.lock();
    if (!in) return;
    bool signal;
    {
      std::lock_guard lock(in->mutex);
      signal = in->idle();
      in->poked.push_back(id);
    }
    if (signal) in->signal();
  };
}

void ShellPump::add(std::uint64_t id, std::unique_ptr<StreamJob> job) {
  {
    std::lock_guard start(start_mutex_);
    // Too late: the job's end kills the command and ends its stream.
    if (stopped_ || !thread_.joinable()) return;
    std::lock_guard lock(inbox_->mutex);
    inbox_->added.push_back({id, std::move(job)});
  }
  inbox_->signal();
}

void ShellPump::stop(std::chrono::milliseconds grace) noexcept {
  std::lock_guard start(start_mutex_);
  stopped_ = true;
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(inbox_->mutex);
    inbox_->stop = true;
    inbox_->stop_grace = grace;
  }
  inbox_->signal();
  thread_.join();
}

void ShellPump::run() {
  epoll_event events[kEventsPerWait];
  std::optional<Clock::time_point> stop_by;
  while (true) {
    const int n = ::epoll_wait(epoll_fd_, events, kEventsPerWait, waitMs(Clock::now(), stop_by));
    for (int i = 0; i < n; ++i) {
      const std::uint64_t key = events[i].data.u64;
      if (key == kInboxKey) {
        std::uint64_t count;
        const ssize_t ignored = ::read(inbox_->event_fd, &count, sizeof count);
        (void)ignored;
      } else if (auto it = jobs_.find(key >> 1); it != jobs_.end()) {
        if (key & 1) it->second.job->leaderExited();
        it->second.hot = true;
      }
    }
    decltype(Inbox::added) added;
    std::vector<std::uint64_t> poked;
    bool stop;
    std::chrono::milliseconds grace;
    {
      std::lock_guard lock(inbox_->mutex);
      added.swap(inbox_->added);
      poked.swap(inbox_->poked);
      stop = inbox_->stop;
      grace = inbox_->stop_grace;
    }
    for (auto& a : added) adopt(a.id, std::move(a.job));
    for (const std::uint64_t id : poked)
      if (auto it = jobs_.find(id); it != jobs_.end()) it->second.hot = true;
    const auto now = Clock::now();
    if (stop && !stop_by) {
      stop_by = now + grace;
      for (auto& [id, entry] : jobs_) {
        entry.job->abandon();
        entry.hot = true;
      }
    }
    serviceJobs(now);
    if (stop_by && (jobs_.empty() || Clock::now() >= *stop_by)) break;
  }
  // What did not end in time: each Subprocess kills and reaps its group.
  for (auto& [id, entry] : jobs_) unwatch(entry);
  jobs_.clear();
}

void ShellPump::adopt(std::uint64_t id, std::unique_ptr<StreamJob> job) {
  Entry entry;
  for (const int fd : job->child().readinessFds()) {
    if (isPipe(fd)) {
      entry.pipes.push_back(fd);
      continue;
    }
    // The pidfd: readable once the leader exited, and for good: one event.
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.u64 = (id << 1) | 1;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
  entry.job = std::move(job);
  jobs_.emplace(id, std::move(entry));
}

void ShellPump::serviceJobs(Clock::time_point now) {
  std::vector<std::uint64_t> done;
  for (auto& [id, entry] : jobs_) {
    if (!entry.hot && entry.job->nextWake() > now) continue;
    entry.hot = false;
    entry.job->service(now);
    if (entry.job->finished()) {
      done.push_back(id);
      continue;
    }
    // Right away: a pipe the service closed has a number another spawn may reuse.
    syncWatch(id, entry);
  }
  for (const std::uint64_t id : done) {
    auto it = jobs_.find(id);
    unwatch(it->second);
    jobs_.erase(it);
  }
}

void ShellPump::syncWatch(std::uint64_t id, Entry& entry) {
  const auto open = entry.job->child().readinessFds();
  // A pipe the Subprocess closed left the epoll set with it.
  std::erase_if(entry.armed, [&](int fd) { return !contains(open, fd); });
  if (!entry.job->wantsPipes()) {
    unwatch(entry);
    return;
  }
  for (const int fd : open) {
    if (!contains(entry.pipes, fd) || contains(entry.armed, fd)) continue;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id << 1;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0) entry.armed.push_back(fd);
  }
}

void ShellPump::unwatch(Entry& entry) {
  for (const int fd : entry.armed) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  entry.armed.clear();
}

int ShellPump::waitMs(Clock::time_point now, std::optional<Clock::time_point> stop_by) const {
  Clock::time_point next = stop_by.value_or(Clock::time_point::max());
  for (const auto& [id, entry] : jobs_) {
    if (entry.hot) return 0;
    next = std::min(next, entry.job->nextWake());
  }
  if (next == Clock::time_point::max()) return -1;
  if (next <= now) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
  return static_cast<int>(std::min<long long>(ms, INT_MAX));
}

}  // namespace abx::plugins::process
