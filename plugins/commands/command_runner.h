// Runs a declarative command: expands its argv template, spawns it through
// sdk::Subprocess (no shell, explicit environment) and turns what it printed
// into the command's result or a typed failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/commands.h"
#include "abx/sdk/subprocess.h"
#include "commands_file.h"

namespace abx::plugins::commands {

/** Longest stderr tail quoted in a non-zero-exit error. */
inline constexpr std::size_t kStderrTailBytes = 2048;

/**
 * The child's whole environment: @p base (the host's ChildEnvironment
 * snapshot), PATH=/usr/local/bin:/usr/bin:/bin if it has no PATH, then the
 * command's `env` (which may override both).
 */
std::vector<std::string> commandEnv(const DeclarativeCommand& command,
                                    std::vector<std::string> base);

/** The spawn options for one call with bound @p args. */
sdk::SpawnOptions spawnOptions(const DeclarativeCommand& command, const sdk::CommandArgs& args,
                               std::vector<std::string> base_env = {});

/**
 * Maps a finished run to the result JSON text: 500-worthy failures are
 * TimeoutError, OutputLimitError, CommandError (non-zero exit, with the
 * stderr tail) and ValueError (output: json that is not JSON).
 */
sdk::Result<std::string> interpretRun(const DeclarativeCommand& command, const sdk::Completed& run);

/** The code of a refused argument that would be read as an option (400). */
inline constexpr const char* kArgumentIsOption = "argument_is_option";

/**
 * nullopt, or why running @p command with @p args is refused: a string
 * argument not declared `allow_dash: true` whose text would begin an argv
 * element with '-' (optionLikeArgument).
 */
std::optional<std::string> dashArgumentRefusal(const DeclarativeCommand& command,
                                               const sdk::CommandArgs& args);

/** A registrable CommandSpec whose fn runs @p command with @p environment's snapshot.
 *  LIFETIME: @p environment outlives the spec (it is the host's). */
sdk::CommandSpec toCommandSpec(DeclarativeCommand command,
                               const sdk::ChildEnvironment& environment);

}  // namespace abx::plugins::commands
