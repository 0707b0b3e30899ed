// The registry of owned children (owned_children.h) and
// Subprocess::reapOrphans(): the server is a child subreaper, so the
// grandchildren its commands leave behind become its children when their
// parents exit; someone must reap them, and never a child a Subprocess owns.
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "abx/sdk/subprocess.h"
#include "owned_children.h"

namespace abx::sdk {

namespace {

struct Registry {
  /** Shared: spawns under way; exclusive: the reaper. */
  std::shared_mutex spawning;
  std::mutex pids_mutex;
  /**
   * A multiset: a pid the kernel hands out again between its owner's reap
   * and the owner's removal is registered twice, and the late removal must
   * not unregister the new owner's child.
   */
  std::unordered_multiset<pid_t> pids;
};

// Never destroyed: Subprocess destructors may run during static destruction.
Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

bool owned(pid_t pid) {
  Registry& r = registry();
  std::lock_guard lock(r.pids_mutex);
  return r.pids.count(pid) > 0;
}

/** A child that exited and waits to be reaped, if any (one system call). */
pid_t exitedChild() {
  siginfo_t info{};
  int r;
  do {
    r = ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  return r == 0 ? info.si_pid : 0;
}

/**
 * Calls @p each with every number in the /proc file @p path, read piece by
 * piece. @return false if it cannot be opened.
 */
template <class Each>
bool forEachNumberIn(const std::string& path, Each each) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  long value = -1;
  char buffer[1024];
  // A process that ends mid-read fails the read with ESRCH: what came counts.
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
    for (const char c : std::string_view(buffer, static_cast<std::size_t>(n))) {
      if (c >= '0' && c <= '9') {
        value = (value < 0 ? 0 : value * 10) + (c - '0');
      } else if (value >= 0) {
        each(value);
        value = -1;
      }
    }
  }
  if (value >= 0) each(value);
  ::close(fd);
  return true;
}

/** The parent of process @p pid (its stat line's fourth field), or -1. */
long parentOf(const std::string& pid) {
  const int fd = ::open(("/proc/" + pid + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  // "pid (comm) state ppid ...": comm has at most 15 bytes, so the ppid is
  // in the first few dozen.
  char head[256];
  const ssize_t n = ::read(fd, head, sizeof head - 1);
  ::close(fd);
  if (n <= 0) return -1;
  head[n] = '\0';
  const char* paren = std::strrchr(head, ')');
  if (paren == nullptr || paren + 4 >= head + n) return -1;
  return std::strtol(paren + 4, nullptr, 10);
}

/** The numeric names in the directory @p path: the tasks or the processes. */
std::vector<std::string> numericEntries(const char* path) {
  std::vector<std::string> out;
  DIR* dir = ::opendir(path);
  if (dir == nullptr) return out;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9') out.emplace_back(e->d_name);
  }
  ::closedir(dir);
  return out;
}

/**
 * Every child of this process: each thread's children file, or, on a kernel
 * without those (CONFIG_PROC_CHILDREN), every process whose parent we are.
 */
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  bool have_files = false;
  for (const std::string& task : numericEntries("/proc/self/task")) {
    have_files |= forEachNumberIn("/proc/self/task/" + task + "/children",
                                  [&](long pid) { out.push_back(static_cast<pid_t>(pid)); });
  }
  if (have_files) return out;
  const long self = ::getpid();
  for (const std::string& name : numericEntries("/proc")) {
    if (parentOf(name) == self) out.push_back(static_cast<pid_t>(std::atol(name.c_str())));
  }
  return out;
}

/** Reaps @p pid if it exited and no Subprocess owns it. */
bool reapIfOrphan(pid_t pid) {
  if (owned(pid)) return false;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  return r == pid;
}

/** Reaps while the exited child the kernel names is an orphan. */
std::size_t reapNamed() {
  std::size_t reaped = 0;
  while (const pid_t pid = exitedChild()) {
    if (!reapIfOrphan(pid)) break;
    ++reaped;
  }
  return reaped;
}

}  // namespace

namespace subprocess_detail {

std::shared_lock<std::shared_mutex> holdForSpawn() { return std::shared_lock(registry().spawning); }

void addOwned(pid_t pid) {
  Registry& r = registry();
  std::lock_guard lock(r.pids_mutex);
  r.pids.insert(pid);
}

pid_t reapOwned(pid_t pid, int& status, int options) {
  pid_t r;
  do {
    r = ::waitpid(pid, &status, options);
  } while (r < 0 && errno == EINTR);
  // Removed after the reap (or a failure, after which the owner never asks
  // again): meanwhile the reaper leaves the pid alone, which is harmless
  // even if it was reused already.
  if (r != 0) {
    Registry& reg = registry();
    std::lock_guard lock(reg.pids_mutex);
    if (auto it = reg.pids.find(pid); it != reg.pids.end()) reg.pids.erase(it);
  }
  return r;
}

}  // namespace subprocess_detail

std::optional<std::size_t> Subprocess::reapOrphans() {
  if (exitedChild() == 0) return 0;
  std::unique_lock hold(registry().spawning, std::try_to_lock);
  if (!hold.owns_lock()) return std::nullopt;
  std::size_t reaped = reapNamed();
  if (exitedChild() != 0) {
    // An owned child that exited hides the rest from waitid(): look at
    // every child. The children files may skip one that is reaped while
    // they are read, hence the second look.
    for (pid_t pid : children()) reaped += reapIfOrphan(pid) ? 1 : 0;
    reaped += reapNamed();
  }
  return reaped;
}

}  // namespace abx::sdk
