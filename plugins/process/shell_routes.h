// POST /shell: run one command (shell words, no shell) to its end and answer
// {"stdout", "stderr", "exit_code", "truncated"}.
#pragma once

#include "abx/sdk/http.h"
#include "launch.h"
#include "shell_runner.h"

namespace abx::plugins::process {

/**
 * 400 bad body, 403 policy (command or cwd), 500 FileNotFoundError /
 * PermissionError / OSError when it cannot start, 500 TimeoutError (with the
 * output so far) at the timeout, else 200.
 */
sdk::Response runShell(const LaunchContext& context, const sdk::Request& request);

}  // namespace abx::plugins::process
