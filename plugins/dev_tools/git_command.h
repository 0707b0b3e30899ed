// Runs one git command for the git routes: `git --no-pager -c color.ui=never
// <args>` with an explicit environment (git_environment.h builds it), stdin
// /dev/null, and maps its failures to the spec's statuses.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/subprocess.h"

namespace abx::plugins::dev_tools {

/** Where git runs, and the one file it looks at when `path` named a file. */
struct GitTarget {
  std::string dir;
  std::optional<std::string> file; /**< a name in `dir` */
};

struct GitRun {
  std::vector<std::string> args; /**< after "git" and the fixed options */
  std::string repo_dir;          /**< the working directory (already guarded) */
  std::vector<std::string> env;  /**< git's whole environment */
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
std::variant<sdk::Completed, sdk::HttpError> runGit(const GitRun& run);

/** The argv runGit() spawns. */
std::vector<std::string> gitArgv(const std::vector<std::string>& args);

}  // namespace abx::plugins::dev_tools
