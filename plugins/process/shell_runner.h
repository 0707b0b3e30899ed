// One foreground command for POST /shell: spawn, collect stdout and stderr
// until the command is over, keep at most max_output_bytes of them (the
// command keeps running; the rest is read and discarded), and stop it with
// the kill ladder at the timeout. The command is over when its leader exited
// and the pipes reached EOF. If the leader exits while members of its group
// still hold the pipes, they are killed, so a stray background job cannot
// stall the call until the timeout; a job that redirected its output holds
// no pipe and is left alone.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"

namespace abx::plugins::process {

struct CommandResult {
  std::string out;
  std::string err;
  int exit_code = 0;      /**< negative: killed by that signal */
  bool truncated = false; /**< more than max_output_bytes were written */
  bool timed_out = false;
};

struct CommandLimits {
  std::chrono::milliseconds timeout{300000};
  std::size_t max_output_bytes = 10u << 20; /**< stdout and stderr together */
  sdk::KillLadder ladder{std::chrono::milliseconds(1000), std::chrono::milliseconds(1000)};
};

/** Spawn failures are the Subprocess's (FileNotFoundError, PermissionError, OSError). */
sdk::Result<CommandResult> runCommand(const sdk::SpawnOptions& options,
                                      const CommandLimits& limits);

}  // namespace abx::plugins::process
