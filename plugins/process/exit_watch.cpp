#include "exit_watch.h"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace abx::plugins::process {

ExitWatch::ExitWatch(pid_t pid) : pid_(pid) {
#ifdef SYS_pidfd_open
  pid_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pid_fd_ < 0) pid_fd_ = -1;
#endif
}

ExitWatch::~ExitWatch() {
  if (pid_fd_ >= 0) ::close(pid_fd_);
}

bool ExitWatch::exited() const {
  siginfo_t info{};
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  // ECHILD: already reaped by someone else; either way it is gone.
  return r < 0 ? errno == ECHILD : info.si_pid != 0;
}

bool ExitWatch::wait(std::chrono::milliseconds timeout) const {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  if (pid_fd_ >= 0) {
    pollfd p{pid_fd_, POLLIN, 0};
    const auto ms = std::max<long long>(0, timeout.count());
    ::poll(&p, 1, static_cast<int>(std::min<long long>(ms, 1 << 30)));
    return exited();
  }
  std::chrono::milliseconds probe{1};
  while (!exited()) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, probe));
    probe = std::min(probe * 2, std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace abx::plugins::process
