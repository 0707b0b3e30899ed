// Internal to the SDK library: starting the children posix_spawn cannot —
// one that runs as the configured child user (Subprocess::setChildUser:
// posix_spawn cannot change credentials) and one on a terminal — with fork
// + exec, doing only async-signal-safe system calls between the two.
#pragma once

#include <string>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"

namespace abx::sdk::detail {

struct ChildFds {
  int in = -1; /**< -1: /dev/null */
  int out = -1;
  int err = -1;
  /** Set: this terminal on 0-2, as the controlling terminal (in/out/err unused). */
  const char* tty = nullptr;
};

/**
 * Starts @p program in a new session with default signal handling, @p fds
 * on 0-2 and nothing else open, as @p user when not null. @return the pid,
 * or the errno of the failed step as a Status.
 */
Result<pid_t> forkExec(const ChildUser* user, const std::string& program, char* const argv[],
                       char* const envp[], ChildFds fds, const std::string& cwd);

}  // namespace abx::sdk::detail
