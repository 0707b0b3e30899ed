#include "pty_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace abx::plugins::terminal {
namespace {

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

sdk::Result<std::unique_ptr<PtyProcess>> PtyProcess::spawn(sdk::SpawnOptions options) {
  if (!options.terminal) options.terminal = sdk::TerminalSize{};
  auto started = sdk::Subprocess::spawn(options);
  if (!started) return started.status();
  std::unique_ptr<PtyProcess> p(new PtyProcess(std::move(started).value()));
  return p;
}

PtyProcess::PtyProcess(sdk::Subprocess process) : process_(std::move(process)) {
  // A terminal child's only readiness fd is its pidfd. The copy outlives the
  // reap (which closes the Subprocess's own), so a bridge that polls it
  // never meets a closed or reused number.
  for (int fd : process_.readinessFds()) exit_fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

PtyProcess::~PtyProcess() {
  {
    std::lock_guard lock(mutex_);
    if (!process_.poll()) {
      signalLocked(SIGKILL);
      process_.wait();
    }
  }
  if (exit_fd_ >= 0) ::close(exit_fd_);
}

sdk::Status PtyProcess::resize(int cols, int rows) {
  std::lock_guard lock(mutex_);
  return process_.resizeTerminal(rows, cols);
}

bool PtyProcess::signalLocked(int sig) noexcept {
  if (!process_.signalGroup(sig)) return false;
  // The foreground job (bash puts each job in its own group): what the
  // terminal's Ctrl-C would reach.
  const pid_t foreground = ::tcgetpgrp(process_.terminalFd());
  if (foreground > 0 && foreground != process_.pid()) ::kill(-foreground, sig);
  return true;
}

bool PtyProcess::signal(int sig) noexcept {
  std::lock_guard lock(mutex_);
  if (process_.poll()) return false;
  return signalLocked(sig);
}

std::optional<int> PtyProcess::poll() noexcept {
  std::lock_guard lock(mutex_);
  return process_.poll();
}

bool PtyProcess::pauseUntilExitOr(std::chrono::steady_clock::time_point deadline) const noexcept {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  if (exit_fd_ >= 0) {
    struct pollfd p {
      exit_fd_, POLLIN, 0
    };
    ::poll(&p, 1, static_cast<int>(left.count()));
  } else {
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(10)));
  }
  return true;
}

std::optional<int> PtyProcess::waitFor(std::chrono::milliseconds timeout) noexcept {
  // Not Subprocess::waitFor: that would hold the mutex for the whole wait.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto code = poll()) return code;
    if (!pauseUntilExitOr(deadline)) return std::nullopt;
  }
}

bool PtyProcess::exitedLocked() noexcept {
  siginfo_t info{};
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(process_.pid()), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  // ECHILD: another thread's poll() reaped it meanwhile.
  return (r == 0 && info.si_pid == process_.pid()) || (r < 0 && errno == ECHILD);
}

int PtyProcess::terminate(std::chrono::milliseconds grace) noexcept {
  {
    std::lock_guard lock(mutex_);
    if (auto code = process_.poll()) return *code;
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
  return process_.wait();
}

}  // namespace abx::plugins::terminal
