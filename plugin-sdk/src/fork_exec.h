// Internal to the SDK library: starting the children posix_spawn cannot —
// one that runs as the configured child user (Subprocess::setChildUser:
// posix_spawn cannot change credentials), one on a terminal (posix_spawn
// has no TIOCSCTTY) and one with resource limits (ProcessLimits) — with
// fork + exec, doing only async-signal-safe system
// calls between the two.
#pragma once

#include <string>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"

namespace abx::sdk::detail {

struct ChildFds {
  int in = -1; /**< -1: /dev/null */
  int out = -1;
  int err = -1;
  /** @p in is a terminal's slave: it becomes the controlling terminal (TIOCSCTTY). */
  bool controlling_terminal = false;
};

/**
 * Starts @p program in a new session with default signal handling, @p fds
 * on 0-2 and nothing else open, as @p user when not null, under @p limits. @return the pid,
 * or the errno of the failed step as a Status (FileNotFoundError,
 * PermissionError, OSError).
 */
Result<pid_t> forkExec(const ChildUser* user, const std::string& program, char* const argv[],
                       char* const envp[], ChildFds fds, const std::string& cwd,
                       const ProcessLimits& limits);

}  // namespace abx::sdk::detail
