// POST /code/run: {"code", "language"?, "timeout"?, "cwd"?} -> {"stdout",
// "stderr", "exit_code", "language", "execution_time_ms", "truncated"}
// (spec §4.7; docs/dev_tools.md).
#pragma once

#include "abx/sdk/http.h"
#include "tool_context.h"

namespace abx::plugins::dev_tools {

/**
 * 400 bad body or unknown language, 403 policy (language, cwd), 408
 * TimeoutError at the timeout, 500 FileNotFoundError when the runtime is not
 * installed (OSError / PermissionError when it cannot start), else 200
 * whatever the code's exit status.
 */
sdk::Response runCode(const ToolContext& context, const sdk::Request& request);

}  // namespace abx::plugins::dev_tools
