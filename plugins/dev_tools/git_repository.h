// Which repository a git route looks at, kept inside the endpoint's allowed
// area: discovery never climbs above the highest allowed ancestor of the
// requested directory (GIT_CEILING_DIRECTORIES), and the work tree, git
// directory, common directory, object store (with its alternates) and index
// git found must lie inside the area too, so a `.git` file, `core.worktree`
// or a symbolic link cannot lead git to files the PathGuard refuses.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/http_error.h"

namespace abx::plugins::dev_tools {

struct GitRepository {
  std::string top_level;  /**< the work tree's root */
  std::string git_dir;    /**< HEAD and index */
  std::string common_dir; /**< config, objects, refs */
};

/** Asks the PathGuard whether the endpoint may read @p path (absolute). */
using AllowedPath = std::function<bool(const std::string& path)>;

/**
 * The output of `git rev-parse --path-format=absolute --show-toplevel
 * --git-dir --git-common-dir`: three absolute paths, one per line; nullopt
 * when it is anything else.
 */
std::optional<GitRepository> parseRepositoryPaths(std::string_view out);

/**
 * GIT_CEILING_DIRECTORIES for a search starting in @p dir (allowed, real):
 * the parent of the highest ancestor of @p dir that is still allowed, so git
 * may find a repository at that ancestor or below, never above.
 */
std::string discoveryCeiling(const std::string& dir, const AllowedPath& allowed);

/** True when @p path is @p root or lies below it (both normalised, absolute). */
bool isWithin(std::string_view path, std::string_view root);

/**
 * Resolves the repository's paths (symbolic links followed) and judges them:
 * 403 path_not_allowed when the work tree's root is not allowed, or when the
 * git directory, the common directory, its object store, an alternate object
 * store or the index lies outside both the work tree and the allowed area;
 * 400 GitError when @p requested (the directory git was asked about) is not
 * inside the work tree. On success @p repo holds the resolved paths.
 */
std::optional<sdk::HttpError> confineRepository(GitRepository& repo, const std::string& requested,
                                                const AllowedPath& allowed);

}  // namespace abx::plugins::dev_tools
