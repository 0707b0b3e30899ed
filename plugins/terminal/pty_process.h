// PtyProcess: a shell on a pseudo-terminal. The SDK's Subprocess cannot give
// a child a controlling terminal (it wires pipes), so this is the plugin's
// own small spawner — still posix_spawn, still no fork():
//   posix_openpt/grantpt/unlockpt -> posix_spawn with POSIX_SPAWN_SETSID, and
//   a file action that opens the slave as fd 0 (dup'ed to 1 and 2).
// The file actions run after setsid() in the child, and on Linux a session
// leader without a controlling terminal that opens a terminal without
// O_NOCTTY acquires it as its controlling terminal (and its process group
// becomes the terminal's foreground group), which is exactly what
// TIOCSCTTY would do. The environment is explicit (protected names
// dropped), the signal mask and dispositions are reset, other fds closed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::plugins::terminal {

struct PtySpawnOptions {
  std::vector<std::string> argv; /**< argv[0]: an absolute path */
  std::vector<std::string> env;  /**< "NAME=value": the child's whole environment */
  std::string cwd;               /**< empty: the server's */
  int cols = 80;
  int rows = 24;
};

/**
 * One child on its own PTY. The destructor SIGKILLs the child's groups if it
 * still runs, reaps it and closes the master.
 * THREAD: safe (one mutex guards the reaping state).
 */
class PtyProcess {
 public:
  /** Failures: OSError (the PTY or the spawn), FileNotFoundError (no such shell). */
  static sdk::Result<std::unique_ptr<PtyProcess>> spawn(const PtySpawnOptions& options);

  PtyProcess(const PtyProcess&) = delete;
  PtyProcess& operator=(const PtyProcess&) = delete;
  ~PtyProcess();

  pid_t pid() const noexcept { return pid_; }
  /** The master side, non-blocking and close-on-exec; valid for the object's life. */
  int masterFd() const noexcept { return master_; }
  /** A pidfd that polls readable when the child exits, or -1 (old kernels). */
  int exitFd() const noexcept { return pid_fd_; }

  /** TIOCSWINSZ on the master: the foreground group gets SIGWINCH. */
  sdk::Status resize(int cols, int rows);
  /**
   * Sends @p sig to the shell's process group and, when a job runs in the
   * foreground of the terminal, to that group too (what Ctrl-C reaches).
   * @return false once the child was reaped.
   */
  bool signal(int sig) noexcept;
  /** Non-blocking reap: the exit code once the child ended (negative: killed by that signal). */
  std::optional<int> poll() noexcept;
  /** Waits up to @p timeout for the child to end. */
  std::optional<int> waitFor(std::chrono::milliseconds timeout) noexcept;
  /**
   * Ends the child: SIGHUP (and SIGCONT) to its groups, up to @p grace for it
   * to leave, then SIGKILL; reaps it. @return the exit code.
   */
  int terminate(std::chrono::milliseconds grace) noexcept;

 private:
  PtyProcess() = default;
  bool signalLocked(int sig) noexcept;
  /** The child ended (not necessarily reaped: waitid WNOWAIT). */
  bool exitedLocked() noexcept;
  std::optional<int> reapLocked(bool block) noexcept;
  /**
   * Sleeps until the child exits (the pidfd turns readable; without one, a
   * short nap) or @p deadline. @return false when the deadline had passed.
   */
  bool pauseUntilExitOr(std::chrono::steady_clock::time_point deadline) const noexcept;

  pid_t pid_ = -1;
  int master_ = -1;
  int pid_fd_ = -1;
  std::mutex mutex_;
  std::optional<int> exit_code_;
};

/**
 * Resolves @p shell: a path with '/' as is, a bare name through the PATH in
 * @p env. @return the absolute path of an executable regular file, or nullopt.
 */
std::optional<std::string> resolveExecutable(const std::string& shell,
                                             const std::vector<std::string>& env);

}  // namespace abx::plugins::terminal
