// The repository as git sees it during a status or diff: git reads its
// configuration from GIT_COMMON_DIR, so that variable points at a private
// directory of the server (GitView) whose `config` the server wrote and whose
// objects, refs, packed-refs, info and shallow are links to the repository's
// own. Nothing of the repository's configuration reaches git but the
// settings copied from it (safeRepositoryConfig): a filter, diff driver,
// hook, fsmonitor, pager or include written into .git/config is never read,
// even when the file changes between the check and the run.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"
#include "git_environment.h"
#include "git_repository.h"

namespace abx::plugins::dev_tools {

/** What git may know of a repository's configuration. */
struct SafeRepositoryConfig {
  std::string format_version = "0";     /**< core.repositoryformatversion: 0 or 1 */
  std::string object_format;            /**< extensions.objectformat: "", sha1 or sha256 */
  std::vector<GitConfigEntry> settings; /**< copied keys, passed as command-line config */
};

/**
 * From `git config --file <common>/config --list -z` ("key\nvalue\0" or
 * "key\0" per entry): the format, and only the keys that change what status
 * and diff report without running anything — core.{filemode, symlinks,
 * ignorecase, precomposeunicode, autocrlf, eol, safecrlf, checkstat,
 * trustctime, quotepath, sparsecheckout, sparsecheckoutcone, splitindex,
 * bigfilethreshold, abbrev}, index.{version, sparse}, status.{renames,
 * renamelimit, showuntrackedfiles}, diff.{renames, renamelimit, algorithm,
 * indentheuristic, context, interhunkcontext}, and for the upstream of
 * `status -b`: branch.<name>.{remote, merge}, remote.<name>.fetch.
 * ValueError for a format git 2.39 would not open either.
 */
sdk::Result<SafeRepositoryConfig> safeRepositoryConfig(std::string_view list_z);

/** A private common directory for one request; removed by the destructor. */
class GitView {
 public:
  /**
   * Creates it in @p parent (created 0700 when missing): `config` holding
   * @p config's format only, links to @p repo's objects, refs, packed-refs,
   * info and shallow; then made read-only.
   */
  static sdk::Result<std::unique_ptr<GitView>> create(const std::string& parent,
                                                      const GitRepository& repo,
                                                      const SafeRepositoryConfig& config);
  ~GitView();
  GitView(const GitView&) = delete;
  GitView& operator=(const GitView&) = delete;

  /** The value of GIT_COMMON_DIR. */
  const std::string& commonDir() const { return dir_; }

 private:
  explicit GitView(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace abx::plugins::dev_tools
