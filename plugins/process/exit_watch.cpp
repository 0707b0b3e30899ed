#include "exit_watch.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often a command whose pipes stay open is checked for a finished leader.
constexpr milliseconds kLeaderProbe{100};
// How long output is still read after the leader exited with its pipes open.
constexpr milliseconds kStragglerDrain{200};

}  // namespace

ExitWatch::ExitWatch(pid_t pid) : pid_(pid) {
#ifdef SYS_pidfd_open
  pid_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pid_fd_ < 0) pid_fd_ = -1;
#endif
}

ExitWatch::~ExitWatch() {
  if (pid_fd_ >= 0) ::close(pid_fd_);
}

bool exitedUnreaped(pid_t pid) {
  siginfo_t info{};
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  // ECHILD: already reaped by someone else; either way it is gone.
  return r < 0 ? errno == ECHILD : info.si_pid != 0;
}

bool ExitWatch::exited() const { return exitedUnreaped(pid_); }

bool ExitWatch::wait(std::chrono::milliseconds timeout) const {
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

bool StragglerSweep::draining() const {
  return !child_.outputDone() && (!leader_gone_ || Clock::now() < drain_until_);
}

milliseconds StragglerSweep::slice(milliseconds left) const {
  if (!leader_gone_) return std::min(left, kLeaderProbe);
  const auto drain = std::chrono::ceil<milliseconds>(drain_until_ - Clock::now());
  return std::clamp(drain, milliseconds(0), left);
}

void StragglerSweep::check() {
  if (leader_gone_ || child_.outputDone()) return;
  if (!watch_) watch_.emplace(child_.pid());
  if (!watch_->exited()) return;
  // The leader is an unreaped zombie, so the group id is still its own.
  leader_gone_ = true;
  drain_until_ = Clock::now() + kStragglerDrain;
  child_.signalGroup(SIGKILL);
}

}  // namespace abx::plugins::process
