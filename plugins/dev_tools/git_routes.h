// GET /git/status and GET /git/diff (spec §4.7; docs/dev_tools.md): the
// query's `path` (a directory in a work tree, or one file in it) through the
// PathGuard, the repository opened by GitSession (confined to the allowed
// area, running nothing the repository configures), git's machine formats
// parsed into JSON, and changed files the PathGuard denies left out.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "abx/sdk/http.h"
#include "abx/sdk/http_error.h"
#include "git_command.h"
#include "tool_context.h"

namespace abx::plugins::dev_tools {

/**
 * The query's `path` (default "."): 400 for a ".." segment or a NUL byte,
 * 403 when the guard refuses it, 400 FileNotFoundError when it does not
 * exist.
 */
std::variant<GitTarget, sdk::HttpError> gitTarget(const ToolContext& context,
                                                  const sdk::Request& request);

/** "true"/"1"/"yes" or "false"/"0"/"no" (any case); absent -> false; else 400. */
std::variant<bool, sdk::HttpError> queryFlag(const sdk::Request& request, std::string_view name);

/** {"branch", "clean", "files", "upstream", "ahead", "behind"} */
sdk::Response gitStatus(const ToolContext& context, const sdk::Request& request);

/**
 * ?staged=true diffs the index against HEAD (git diff --cached).
 * {"diff", "truncated", "stats": {"files_changed", "insertions", "deletions"}, "files"}
 */
sdk::Response gitDiff(const ToolContext& context, const sdk::Request& request);

/** @p diff cut to @p cap bytes (on a UTF-8 boundary) + "\n... (truncated at 1MB)". */
std::string truncateDiff(std::string diff, std::size_t cap);

}  // namespace abx::plugins::dev_tools
