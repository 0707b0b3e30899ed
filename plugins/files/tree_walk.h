// Reading directories for listing, search and archive: every entry is
// judged by the PathGuard (so deny globs and symlinks that leave the
// boundary drop out), symlinks are reported but never descended into, and
// the walk is depth-first in name order so results are stable.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

#include "abx/sdk/path_guard.h"
#include "abx/sdk/status.h"

namespace abx::plugins::files {

struct DirEntry {
  std::string name;   /**< raw bytes, as on disk */
  std::string path;   /**< the directory's resolved path + "/" + name */
  struct stat lst {}; /**< lstat of the entry itself */
  bool is_link = false;
  std::string target;         /**< a link's resolved target (inside the boundary) */
  bool target_exists = false; /**< false for a dangling link */
  struct stat st {};          /**< stat of what the entry names (the target for a link) */
};

/**
 * The entries of directory @p dir (already allowed by the guard), opened
 * through the guard for PathOp::list, sorted by name. Entries the guard
 * refuses for reading are left out; an entry that vanished meanwhile too.
 */
sdk::Result<std::vector<DirEntry>> readDirectory(const sdk::PathGuard& guard,
                                                 std::string_view endpoint, const std::string& dir);

enum class Visit { go_on, skip_children, stop };

/**
 * Depth-first walk below @p root (not reported itself): @p visit sees each
 * allowed entry with its path relative to @p root; real directories are
 * entered unless it says skip_children. Directories that cannot be read are
 * skipped silently. @return false when the walk was stopped by @p visit.
 */
bool walkTree(const sdk::PathGuard& guard, std::string_view endpoint, const std::string& root,
              const std::function<Visit(const DirEntry&, const std::string& relative)>& visit);

}  // namespace abx::plugins::files
