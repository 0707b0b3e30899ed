#include "git_view.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace abx::plugins::dev_tools {
namespace {

// Keys whose values change what status and diff report, and never name a
// program or a file to read.
const std::set<std::string, std::less<>> kCopiedKeys = {
    "core.filemode",       "core.symlinks",
    "core.ignorecase",     "core.precomposeunicode",
    "core.autocrlf",       "core.eol",
    "core.safecrlf",       "core.checkstat",
    "core.trustctime",     "core.quotepath",
    "core.sparsecheckout", "core.sparsecheckoutcone",
    "core.splitindex",     "core.bigfilethreshold",
    "core.abbrev",         "index.version",
    "index.sparse",        "status.renames",
    "status.renamelimit",  "status.showuntrackedfiles",
    "diff.renames",        "diff.renamelimit",
    "diff.algorithm",      "diff.indentheuristic",
    "diff.context",        "diff.interhunkcontext"};

// "<section>.<subsection>.<name>" with the given section and name (the
// subsection may hold dots).
bool isSubsectionKey(std::string_view key, std::string_view section, std::string_view name) {
  return key.size() > section.size() + name.size() + 2 && key.starts_with(section) &&
         key[section.size()] == '.' && key.ends_with(name) &&
         key[key.size() - name.size() - 1] == '.';
}

bool copied(std::string_view key) {
  return kCopiedKeys.contains(key) || isSubsectionKey(key, "branch", "remote") ||
         isSubsectionKey(key, "branch", "merge") || isSubsectionKey(key, "remote", "fetch");
}

sdk::Status osError(const std::string& what) {
  return sdk::Status::error(what + ": " + std::strerror(errno), "OSError");
}

}  // namespace

sdk::Result<SafeRepositoryConfig> safeRepositoryConfig(std::string_view list_z) {
  SafeRepositoryConfig out;
  std::size_t start = 0;
  while (start < list_z.size()) {
    auto end = list_z.find('\0', start);
    if (end == std::string_view::npos) end = list_z.size();
    std::string_view entry = list_z.substr(start, end - start);
    start = end + 1;
    const auto newline = entry.find('\n');
    const std::string key(entry.substr(0, newline));
    const std::string value(newline == std::string_view::npos ? "true" : entry.substr(newline + 1));
    if (key == "core.repositoryformatversion") {
      if (value != "0" && value != "1")
        return sdk::Status::error("Unsupported repository format version " + value, "ValueError");
      out.format_version = value;
    } else if (key == "extensions.objectformat") {
      if (value != "sha1" && value != "sha256")
        return sdk::Status::error("Unsupported object format " + value, "ValueError");
      out.object_format = value;
    } else if (copied(key)) {
      out.settings.push_back({key, value});
    }
  }
  return out;
}

sdk::Result<std::unique_ptr<GitView>> GitView::create(const std::string& parent,
                                                      const GitRepository& repo,
                                                      const SafeRepositoryConfig& config) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  // Traversable, not listable: git may run as the child user, which must
  // read its view but never write one.
  ::chmod(parent.c_str(), 0711);
  std::string tmpl = parent + "/view-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return osError("Cannot create a git view in " + parent);
  std::unique_ptr<GitView> view(new GitView(tmpl));
  {
    std::ofstream file(view->dir_ + "/config");
    file << "[core]\n\trepositoryformatversion = " << config.format_version << "\n\tbare = false\n";
    if (!config.object_format.empty())
      file << "[extensions]\n\tobjectformat = " << config.object_format << "\n";
    if (!file.flush()) return osError("Cannot write " + view->dir_ + "/config");
  }
  for (const char* entry : {"objects", "refs", "packed-refs", "info", "shallow"}) {
    const std::string target = repo.common_dir + "/" + entry;
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) continue;
    if (::symlink(target.c_str(), (view->dir_ + "/" + entry).c_str()) != 0)
      return osError("Cannot link " + target);
  }
  // Nothing may be added to it while git runs (the owner could, but none of
  // the server's routes changes permissions); readable by a child user, whose
  // git reads it, and holding nothing but a format version and links.
  ::chmod(view->dir_.c_str(), 0555);
  return view;
}

GitView::~GitView() {
  ::chmod(dir_.c_str(), 0700);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);  // removes the links, not what they point to
}

}  // namespace abx::plugins::dev_tools
