// One git route's repository, opened safely: discovery with a ceiling at the
// top of the allowed area (git_repository.h), the repository's paths judged
// by the PathGuard, its configuration reduced to safe settings in a private
// common directory (git_view.h), and every run with the neutral environment
// (git_environment.h), the request's one deadline, and its output scoped to
// the requested path.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/subprocess.h"
#include "git_command.h"
#include "git_repository.h"
#include "git_view.h"
#include "tool_context.h"

namespace abx::plugins::dev_tools {

class GitSession {
 public:
  /**
   * Opens the repository holding @p target for @p endpoint within
   * @p timeout (shared by every run of the request). Refusals: 403
   * path_not_allowed (see confineRepository), 400 GitError (not a
   * repository, git's own errors), 408 TimeoutError, 500 when git is
   * missing or the private directory cannot be made.
   */
  static std::variant<std::unique_ptr<GitSession>, sdk::HttpError> open(
      const ToolContext& context, const std::string& endpoint, const GitTarget& target,
      std::chrono::milliseconds timeout);

  /**
   * Runs `git <args> -- <scope>` in the work tree's root (no pathspec when
   * the target is the root), then @p extra_pathspecs. Output past
   * @p max_output_bytes is cut (Completed::truncated).
   */
  std::variant<sdk::Completed, sdk::HttpError> run(
      std::vector<std::string> args, std::size_t max_output_bytes,
      const std::vector<std::string>& extra_pathspecs = {}) const;

  const GitRepository& repository() const { return repo_; }

  /** The requested path relative to the work tree's root ("" for the root itself). */
  const std::string& scope() const { return scope_; }

 private:
  GitSession() = default;
  /** @p run with what is left of the request's timeout (408 once it is spent). */
  std::variant<sdk::Completed, sdk::HttpError> runWithin(GitRun run) const;
  const ToolContext* context_ = nullptr;
  GitRepository repo_;
  std::unique_ptr<GitView> view_;
  std::vector<GitConfigEntry> settings_;
  std::string scope_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::milliseconds timeout_{0};
};

/** The pathspec naming exactly @p relative (from the work tree's root), whatever it holds. */
std::string literalPathspec(const std::string& relative);

/** A pathspec that leaves @p relative out. */
std::string excludedPathspec(const std::string& relative);

/**
 * @p args, then "--", the literal pathspec of @p scope (none for the work
 * tree's root) and @p extra_pathspecs; no "--" when there is no pathspec.
 */
std::vector<std::string> scopedGitArgs(std::vector<std::string> args, const std::string& scope,
                                       const std::vector<std::string>& extra_pathspecs);

}  // namespace abx::plugins::dev_tools
