// detail::forkExec (see fork_exec.h): fork + exec for the children
// posix_spawn cannot start — another user's, and a terminal's.
#include "fork_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace abx::sdk {
namespace {

[[noreturn]] void childFailed(int report_fd) {
  int err = errno;
  ssize_t ignored = ::write(report_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

namespace detail {

Result<pid_t> forkExec(const ChildUser* user, const std::string& program, char* const argv[],
                       char* const envp[], ChildFds fds, const std::string& cwd,
                       const ProcessLimits& limits) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return Status::error("pipe2: " + std::generic_category().message(errno), "OSError");
  sigset_t none;
  sigemptyset(&none);
  const char* dir = cwd.empty() ? nullptr : cwd.c_str();
  // Built before the fork: the child only hands it to the kernel.
  const unsigned cpu = limits.cpu_seconds.value_or(0);
  const struct rlimit cpu_limit { cpu, static_cast<rlim_t>(cpu) + ProcessLimits::kCpuKillGrace };
  pid_t pid = ::fork();
  if (pid == 0) {
    // The child of a multithreaded process: async-signal-safe calls only,
    // raw system calls for the credentials (glibc's wrappers would try to
    // reach threads that only exist in the parent).
    ::setsid();
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s) ::sigaction(s, &dfl, nullptr);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int in = fds.in >= 0 ? fds.in : ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, 0) < 0 || ::dup2(fds.out, 1) < 0 || ::dup2(fds.err, 2) < 0)
      childFailed(report[1]);
    // The new session has no controlling terminal yet: the slave becomes it,
    // and the child's group the terminal's foreground group (job control).
    if (fds.controlling_terminal && ::ioctl(0, TIOCSCTTY, 0) != 0) childFailed(report[1]);
    if (dir && ::chdir(dir) != 0) childFailed(report[1]);
    // Before dropping credentials: lowering a limit needs no privilege, and
    // the child user cannot raise it again past the hard limit.
    if (cpu > 0 && ::syscall(SYS_prlimit64, 0, RLIMIT_CPU, &cpu_limit, nullptr) != 0)
      childFailed(report[1]);
    if (user && (::syscall(SYS_setgroups, user->groups.size(), user->groups.data()) != 0 ||
                 ::syscall(SYS_setresgid, user->gid, user->gid, user->gid) != 0 ||
                 ::syscall(SYS_setresuid, user->uid, user->uid, user->uid) != 0))
      childFailed(report[1]);
    // Nothing of the server's but 0-2 and the report pipe (CLOEXEC) survives.
    ::syscall(SYS_close_range, 3u, static_cast<unsigned>(report[1]) - 1, 0u);
    ::syscall(SYS_close_range, static_cast<unsigned>(report[1]) + 1, ~0u, 0u);
    ::execve(program.c_str(), argv, envp);
    childFailed(report[1]);
  }
  ::close(report[1]);
  if (pid < 0) {
    int err = errno;
    ::close(report[0]);
    return Status::error("fork: " + std::generic_category().message(err), "OSError");
  }
  int err = 0;
  ssize_t got;
  do {
    got = ::read(report[0], &err, sizeof err);
  } while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof err)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (err == ENOENT)
      return Status::error("No such file or directory: '" + std::string(argv[0]) + "'",
                           "FileNotFoundError");
    return Status::error(
        "cannot start '" + std::string(argv[0]) + "': " + std::generic_category().message(err),
        err == EACCES || err == EPERM ? "PermissionError" : "OSError");
  }
  return pid;
}

}  // namespace detail
}  // namespace abx::sdk
