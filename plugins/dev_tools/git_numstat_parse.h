// Parses `git diff --numstat -z`: "added\tdeleted\tpath\0" per file, or for a
// rename or copy "added\tdeleted\t\0from\0to\0"; a binary file has "-" for
// both counts. Names are verbatim (-z: no quoting).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::plugins::dev_tools {

struct FileStat {
  std::string path;
  std::optional<std::string> original_path; /**< renames and copies */
  std::uint64_t insertions = 0;
  std::uint64_t deletions = 0;
  bool binary = false;
};

struct DiffStats {
  std::vector<FileStat> files;
  std::uint64_t insertions = 0;
  std::uint64_t deletions = 0;
};

/** ValueError when the output does not follow the format. */
sdk::Result<DiffStats> parseNumstat(std::string_view output);

/** {"files_changed", "insertions", "deletions"} */
std::string statsJson(const DiffStats& stats);

/** [{"path", "insertions", "deletions", "binary"[, "original_path"]}] */
std::string fileStatsJson(const DiffStats& stats);

}  // namespace abx::plugins::dev_tools
