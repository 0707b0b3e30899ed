// The one path-checking implementation behind every sdk::PathGuard in the
// server: resolve a caller's path component by component (symlinks inside
// the allowed area followed or refused, nothing outside it ever touched),
// judge the result against a PathRules (allow / deny / read_only globs,
// always-denied /proc, /sys, /dev, never "/"), and open it without following
// any symlink on the way, so a component swapped after the check is refused.
//
// No existence oracle: the verdict depends only on the path string and on
// what lies inside the allowed area; the filesystem outside it is never
// lstat'ed, so an outside path gets the same answer whether it exists, is a
// symlink or dangling, or is missing. Messages only echo the path as given.
#pragma once

#include <string>
#include <string_view>

#include "abx/sdk/path_guard.h"
#include "abx/sdk/policy.h"

namespace abx::kernel {

/**
 * The verdict on @p path for @p op under @p base_dir (already a realpath) and
 * @p rules. Relative paths are relative to @p base_dir. For PathOp::remove
 * the final component is not followed when it is a symlink (like unlink(2)),
 * and the root of the allowed area (an entry whose parent lies outside it)
 * is refused. Codes: invalid_path (400), path_not_allowed, path_denied,
 * read_only, symlink_denied (403).
 */
sdk::PathCheck checkPath(const std::string& base_dir, const sdk::PathRules& rules,
                         std::string_view path, sdk::PathOp op);

/**
 * checkPath without touching the filesystem: "." and ".." applied lexically,
 * no symlink seen. For policy-only questions (POST /capabilities/check); its
 * "resolved" is only what the policy would judge, never something to open.
 */
sdk::PathCheck checkPathLexically(const std::string& base_dir, const sdk::PathRules& rules,
                                  std::string_view path, sdk::PathOp op);

/**
 * Opens @p verdict.resolved (an allowed checkPath verdict for @p path) walking
 * from "/" with O_NOFOLLOW on every component: a directory or the final
 * entry swapped for a symlink since the check gives a PermissionError whose
 * message is "symlink_denied". ENOENT gives FileNotFoundError, anything else
 * OSError; messages name only @p path as given. A denied @p verdict is
 * returned as its code (PermissionError, or ValueError for invalid_path).
 */
sdk::Result<int> openChecked(const sdk::PathCheck& verdict, std::string_view path, int flags,
                             int mode);

/**
 * checkPath, then open without following any symlink on the way
 * (openChecked); the fd (caller closes) or a PermissionError Status whose
 * message is the check's code (ValueError for invalid_path).
 */
sdk::Result<int> openPath(const std::string& base_dir, const sdk::PathRules& rules,
                          std::string_view path, sdk::PathOp op, int flags, int mode);

}  // namespace abx::kernel
