// ExitWatch: notices that a child exited without reaping it. While the child
// is an unreaped zombie its pid (and so its process-group id) cannot be
// reused, so whoever reaps it may still signal the group safely first: the
// stragglers that keep its pipes open are killed, and a signal route racing
// with the reaper never hits a recycled pid.
#pragma once

#include <sys/types.h>

#include <chrono>

namespace abx::plugins::process {

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

}  // namespace abx::plugins::process
