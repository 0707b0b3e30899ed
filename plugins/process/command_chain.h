// The command policy (params.allow_commands, deny_commands, shells) applied
// to every program a command starts, not only argv[0]: through launchers
// (launchers.h), #! interpreters and symbolic links (program_identity.h),
// busybox applets, and the simple commands of sh/bash/dash -c strings
// (shell_script.h), each judged as the program that will actually run.
// What cannot be followed is refused. docs/process.md lists the limits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/policy.h"

namespace abx::plugins::process {

/** True when @p params sets allow_commands, deny_commands or shells. */
bool hasCommandPolicy(const sdk::Params& params);

/**
 * The verdict of @p params on running @p argv with the environment @p env
 * ("NAME=value") in @p cwd: nullopt, or a 403 PermissionError with code
 * command_not_allowed that names the refused program (and what starts it),
 * or says why the command cannot be judged.
 */
std::optional<sdk::HttpError> judgeCommand(const std::vector<std::string>& argv,
                                           const std::vector<std::string>& env,
                                           const std::string& cwd, const sdk::Params& params);

}  // namespace abx::plugins::process
