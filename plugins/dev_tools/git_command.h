// Runs one git command for the git routes: `git --no-pager -c color.ui=never
// <args>` in a repository directory, with the child environment plus
// GIT_TERMINAL_PROMPT=0 (never wait for credentials) and GIT_OPTIONAL_LOCKS=0
// (a status does not take the index lock of a repository someone is using),
// and maps its failures to the spec's statuses.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/subprocess.h"
#include "refusal.h"
#include "tool_context.h"

namespace abx::plugins::dev_tools {

struct GitRun {
  std::vector<std::string> args; /**< after "git" and the fixed options */
  std::string repo_dir;          /**< the working directory (already guarded) */
  std::chrono::milliseconds timeout{30000};
  std::size_t max_output_bytes = 32u << 20;
};

/**
 * The finished run (output possibly cut: Completed::truncated), or: 500
 * FileNotFoundError when git is not installed, 408 TimeoutError at the
 * timeout, 400 GitError with git's stderr when git exits non-zero (unless
 * the output was cut, which stops git early), 500 OSError when it cannot
 * start.
 */
std::variant<sdk::Completed, Refusal> runGit(const ToolContext& context, const GitRun& run);

/** The argv runGit() spawns. */
std::vector<std::string> gitArgv(const std::vector<std::string>& args);

}  // namespace abx::plugins::dev_tools
