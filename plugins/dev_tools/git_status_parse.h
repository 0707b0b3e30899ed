// Parses `git status --porcelain=v1 -b -z`: the "## " branch header and one
// record per changed path. -z keeps names verbatim (no quoting; a name may
// hold a space or a newline) and puts a rename's source after its target:
// "XY to\0from\0".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::plugins::dev_tools {

struct StatusEntry {
  std::string path;
  std::string status;  /**< modified, added, deleted, renamed, untracked, copied, unmerged */
  char index = ' ';    /**< X: the index side of the XY code */
  char worktree = ' '; /**< Y: the work-tree side */
  std::optional<std::string> original_path; /**< renames and copies: the source */
};

struct RepoStatus {
  std::string branch; /**< "HEAD" when detached */
  std::optional<std::string> upstream;
  int ahead = 0;
  int behind = 0;
  std::vector<StatusEntry> files;
};

/** The status word of an XY code (spec §4.7); "modified" for any other change. */
std::string statusWord(char index, char worktree);

/** ValueError when the output does not follow the format. */
sdk::Result<RepoStatus> parsePorcelainStatus(std::string_view output);

/** {"branch", "clean", "files": [{"path", "status", "index", "worktree"[, "original_path"]}],
 *  "upstream", "ahead", "behind"} */
std::string statusJson(const RepoStatus& status);

}  // namespace abx::plugins::dev_tools
