#include "pty_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "abx/sdk/subprocess.h"

namespace abx::plugins::terminal {
namespace {

sdk::Status osError(const std::string& what, int err) {
  return sdk::Status::error(what + ": " + std::strerror(err), "OSError");
}

int exitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> resolveExecutable(const std::string& shell,
                                             const std::vector<std::string>& env) {
  if (shell.empty()) return std::nullopt;
  if (shell.find('/') != std::string::npos) {
    if (shell.front() != '/' || !isExecutableFile(shell)) return std::nullopt;
    return shell;
  }
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& entry : env)
    if (entry.starts_with("PATH=")) path = entry.substr(5);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    start = end + 1;
    if (dir.empty() || dir.front() != '/') continue;  // relative elements mean nothing here
    std::string candidate = dir + "/" + shell;
    if (isExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

sdk::Result<std::unique_ptr<PtyProcess>> PtyProcess::spawn(const PtySpawnOptions& options) {
  if (options.argv.empty() || options.argv[0].empty() || options.argv[0].front() != '/')
    return sdk::Status::error("PtyProcess: argv[0] must be an absolute path", "ValueError");

  std::unique_ptr<PtyProcess> p(new PtyProcess());
  p->master_ = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (p->master_ < 0) return osError("Could not open a pseudo-terminal", errno);
  char slave[128];
  if (::grantpt(p->master_) != 0 || ::unlockpt(p->master_) != 0)
    return osError("Could not prepare the pseudo-terminal", errno);
  // ptsname_r returns the error number instead of setting errno.
  if (const int err = ::ptsname_r(p->master_, slave, sizeof slave); err != 0)
    return osError("Could not name the pseudo-terminal", err);

  struct winsize size {};
  size.ws_col = static_cast<unsigned short>(options.cols);
  size.ws_row = static_cast<unsigned short>(options.rows);
  if (::ioctl(p->master_, TIOCSWINSZ, &size) != 0)
    return osError("Could not size the pseudo-terminal", errno);
  // Erase and line editing count characters, not bytes, in UTF-8.
  struct termios tio {};
  if (::tcgetattr(p->master_, &tio) == 0) {
    tio.c_iflag |= IUTF8;
    ::tcsetattr(p->master_, TCSANOW, &tio);
  }

  // grantpt gave the slave to the server's user; a child user must open it.
  if (auto given = sdk::Subprocess::giveToChildUser(slave); !given) return given;
  auto started = sdk::Subprocess::spawnOnTerminal(options.argv, options.env, options.cwd, slave);
  if (!started) return started.status();
  const pid_t pid = *started;
  p->pid_ = pid;
  // Safe after the spawn: the pid cannot be reused before we reap it.
  p->pid_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (p->pid_fd_ < 0) p->pid_fd_ = -1;
  const int flags = ::fcntl(p->master_, F_GETFL);
  if (flags >= 0) ::fcntl(p->master_, F_SETFL, flags | O_NONBLOCK);
  return p;
}

PtyProcess::~PtyProcess() {
  if (pid_ > 0) {
    std::lock_guard lock(mutex_);
    if (!reapLocked(false)) {
      signalLocked(SIGKILL);
      reapLocked(true);
    }
  }
  if (pid_fd_ >= 0) ::close(pid_fd_);
  if (master_ >= 0) ::close(master_);
}

sdk::Status PtyProcess::resize(int cols, int rows) {
  struct winsize size {};
  size.ws_col = static_cast<unsigned short>(cols);
  size.ws_row = static_cast<unsigned short>(rows);
  if (::ioctl(master_, TIOCSWINSZ, &size) != 0) return osError("Could not resize", errno);
  return sdk::Status::ok();
}

bool PtyProcess::signalLocked(int sig) noexcept {
  if (exit_code_) return false;
  ::kill(-pid_, sig);
  // The foreground job (bash puts each job in its own group): what the
  // terminal's Ctrl-C would reach.
  const pid_t foreground = ::tcgetpgrp(master_);
  if (foreground > 0 && foreground != pid_) ::kill(-foreground, sig);
  return true;
}

bool PtyProcess::signal(int sig) noexcept {
  std::lock_guard lock(mutex_);
  if (reapLocked(false)) return false;
  return signalLocked(sig);
}

std::optional<int> PtyProcess::reapLocked(bool block) noexcept {
  if (exit_code_) return exit_code_;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    exit_code_ = exitCodeOf(status);
  } else if (r < 0 && errno == ECHILD) {
    exit_code_ = -1;  // reaped elsewhere (SIGCHLD ignored): gone, code unknown
  }
  return exit_code_;
}

std::optional<int> PtyProcess::poll() noexcept {
  std::lock_guard lock(mutex_);
  return reapLocked(false);
}

bool PtyProcess::pauseUntilExitOr(std::chrono::steady_clock::time_point deadline) const noexcept {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  if (pid_fd_ >= 0) {
    struct pollfd p {
      pid_fd_, POLLIN, 0
    };
    ::poll(&p, 1, static_cast<int>(left.count()));
  } else {
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(10)));
  }
  return true;
}

std::optional<int> PtyProcess::waitFor(std::chrono::milliseconds timeout) noexcept {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto code = poll()) return code;
    if (!pauseUntilExitOr(deadline)) return std::nullopt;
  }
}

bool PtyProcess::exitedLocked() noexcept {
  if (exit_code_) return true;
  siginfo_t info{};
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  return (r == 0 && info.si_pid == pid_) || (r < 0 && errno == ECHILD);
}

int PtyProcess::terminate(std::chrono::milliseconds grace) noexcept {
  {
    std::lock_guard lock(mutex_);
    if (reapLocked(false)) return *exit_code_;
    // SIGHUP is what a terminal hang-up sends; an interactive bash exits on
    // it (and passes it to its jobs) while it ignores SIGTERM. SIGCONT wakes
    // stopped jobs so they can receive it.
    signalLocked(SIGHUP);
    signalLocked(SIGCONT);
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (exitedLocked()) break;
    }
    if (!pauseUntilExitOr(deadline)) break;
  }
  // Not reaped yet, so the groups cannot have been reused: sweep what is
  // left of them (the shell, or jobs that outlived it), then reap.
  std::lock_guard lock(mutex_);
  signalLocked(SIGKILL);
  return reapLocked(true).value_or(-SIGKILL);
}

}  // namespace abx::plugins::terminal
