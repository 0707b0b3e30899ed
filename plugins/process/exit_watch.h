// ExitWatch: notices that a child exited without reaping it. While the child
// is an unreaped zombie its pid (and so its process-group id) cannot be
// reused, so whoever reaps it may still signal the group safely first: the
// stragglers that keep its pipes open are killed, and a signal route racing
// with the reaper never hits a recycled pid.
// StragglerSweep: that rule for the one-shot commands of /shell and
// /shell/stream, which are over when the leader exited and the pipes reached
// EOF.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

#include "abx/sdk/subprocess.h"

namespace abx::plugins::process {

/**
 * Non-blocking: true once the child @p pid exited (or someone else reaped
 * it), without reaping it: its group id stays its own.
 */
bool exitedUnreaped(pid_t pid);

class ExitWatch {
 public:
  /** @p pid: a child of this process, not yet reaped. */
  explicit ExitWatch(pid_t pid);
  ExitWatch(const ExitWatch&) = delete;
  ExitWatch& operator=(const ExitWatch&) = delete;
  ~ExitWatch();

  /** Non-blocking: true once the child has exited (it stays unreaped). */
  bool exited() const;
  /** Waits up to @p timeout for the exit (a pidfd when the kernel has one). */
  bool wait(std::chrono::milliseconds timeout) const;

 private:
  pid_t pid_;
  int pid_fd_ = -1;
};

/**
 * Keeps a background job that still holds the pipes (`sh -c 'server & echo
 * hi'`) from stalling a one-shot command until its timeout: once the leader
 * exited, the rest of its group is killed and their output drained briefly
 * (a process that left the group may hold the pipes forever). A job that
 * redirected its output holds no pipe and is left alone.
 * THREAD: the thread that reads @p child.
 */
class StragglerSweep {
 public:
  explicit StragglerSweep(sdk::Subprocess& child) : child_(child) {}

  /** Output is still worth reading: not at EOF, and the leader runs or the drain is on. */
  bool draining() const;
  /** How long the next read may wait, at most @p left. */
  std::chrono::milliseconds slice(std::chrono::milliseconds left) const;
  /** After a read that got nothing: a leader found exited has its group killed. */
  void check();

 private:
  sdk::Subprocess& child_;
  std::optional<ExitWatch> watch_;  // opened only for a command that outlives a probe
  bool leader_gone_ = false;
  std::chrono::steady_clock::time_point drain_until_{};
};

}  // namespace abx::plugins::process
