// PtyProcess: a shell on a pseudo-terminal, started by the SDK's Subprocess
// (SpawnOptions::terminal: new session, the slave as controlling terminal,
// the window size, IUTF8, the child user, the explicit environment). What is
// the terminal's own stays here: one mutex so that handlers, the WebSocket
// bridge and the sweeper may share the process, signals that also reach the
// terminal's foreground job, and the hang-up ladder SIGHUP -> grace ->
// SIGKILL (an interactive bash ignores SIGTERM and SIGINT).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"

namespace abx::plugins::terminal {

/**
 * One child on its own PTY. The destructor SIGKILLs the child's groups if it
 * still runs, reaps it and closes the master.
 * THREAD: safe (one mutex guards the Subprocess).
 */
class PtyProcess {
 public:
  /**
   * Spawns @p options on a terminal (SpawnOptions::terminal, 24x80 when
   * unset). Failures: OSError (the PTY or the spawn), FileNotFoundError (no
   * such shell), PermissionError.
   */
  static sdk::Result<std::unique_ptr<PtyProcess>> spawn(sdk::SpawnOptions options);

  PtyProcess(const PtyProcess&) = delete;
  PtyProcess& operator=(const PtyProcess&) = delete;
  ~PtyProcess();

  pid_t pid() const noexcept { return process_.pid(); }
  /** The master side, non-blocking and close-on-exec; valid for the object's life. */
  int masterFd() const noexcept { return process_.terminalFd(); }
  /** A pidfd that polls readable when the child exits, or -1 (old kernels);
   *  open for the object's life, reaped or not. */
  int exitFd() const noexcept { return exit_fd_; }

  /** The terminal's new size: the foreground group gets SIGWINCH. */
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
  explicit PtyProcess(sdk::Subprocess process);
  bool signalLocked(int sig) noexcept;
  /** The child ended (not necessarily reaped: waitid WNOWAIT). */
  bool exitedLocked() noexcept;
  /**
   * Sleeps until the child exits (the pidfd turns readable; without one, a
   * short nap) or @p deadline. @return false when the deadline had passed.
   */
  bool pauseUntilExitOr(std::chrono::steady_clock::time_point deadline) const noexcept;

  sdk::Subprocess process_;  // guarded by mutex_ (pid and terminalFd never change)
  int exit_fd_ = -1;
  std::mutex mutex_;
};

/**
 * Resolves @p shell: a path with '/' as is, a bare name through the PATH in
 * @p env. @return the absolute path of an executable regular file, or nullopt.
 */
std::optional<std::string> resolveExecutable(const std::string& shell,
                                             const std::vector<std::string>& env);

}  // namespace abx::plugins::terminal
