// Adopting and reaping orphans (orphan_reaper.h).
#include "server/orphan_reaper.h"

#include <sys/prctl.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "abx/sdk/subprocess.h"

namespace abx::kernel {

namespace {

// A spawn holds off the reaper only until its pid is registered: retrying
// this soon after one is cheap and finds it done.
constexpr long kRetryNanoseconds = 20'000'000;

}  // namespace

bool adoptOrphans() { return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

int waitReapingOrphans(const sigset_t& signals) {
  bool retry = false;
  while (true) {
    int sig;
    if (retry) {
      const timespec soon{0, kRetryNanoseconds};
      sig = ::sigtimedwait(&signals, nullptr, &soon);
      if (sig < 0 && errno == EAGAIN) sig = SIGCHLD;
    } else {
      sig = ::sigwaitinfo(&signals, nullptr);
    }
    if (sig < 0) continue;  // EINTR
    if (sig != SIGCHLD) return sig;
    // SIGCHLDs merge while pending; one pass reaps every orphan there is.
    retry = !sdk::Subprocess::reapOrphans().has_value();
  }
}

std::size_t endChildrenLeft() {
  std::size_t signalled = 0;
  std::error_code ec;
  // Each thread's children: a child belongs to the thread that spawned it.
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream children(task.path() / "children");
    long pid = 0;
    while (children >> pid) {
      if (pid <= 0) continue;
      // A Subprocess child leads its own group; kill the group, or the child.
      if (::kill(static_cast<pid_t>(-pid), SIGKILL) != 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
      ++signalled;
    }
  }
  return signalled;
}

}  // namespace abx::kernel
