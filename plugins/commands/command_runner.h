// Runs a declarative command: expands its argv template, spawns it through
// sdk::Subprocess (no shell, explicit environment) and turns what it printed
// into the command's result or a typed failure.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/commands.h"
#include "abx/sdk/subprocess.h"
#include "commands_file.h"

namespace abx::plugins::commands {

/** Longest stderr tail quoted in a non-zero-exit error. */
inline constexpr std::size_t kStderrTailBytes = 2048;

/**
 * The child's whole environment: PATH=/usr/local/bin:/usr/bin:/bin, the
 * server's HOME, then the command's `env` (which may override both).
 */
std::vector<std::string> commandEnv(const DeclarativeCommand& command);

/** The spawn options for one call with bound @p args. */
sdk::SpawnOptions spawnOptions(const DeclarativeCommand& command, const sdk::CommandArgs& args);

/**
 * Maps a finished run to the result JSON text: 500-worthy failures are
 * TimeoutError, OutputLimitError, CommandError (non-zero exit, with the
 * stderr tail) and ValueError (output: json that is not JSON).
 */
sdk::Result<std::string> interpretRun(const DeclarativeCommand& command, const sdk::Completed& run);

/** A registrable CommandSpec whose fn runs @p command. */
sdk::CommandSpec toCommandSpec(DeclarativeCommand command);

}  // namespace abx::plugins::commands
