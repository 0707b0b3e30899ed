#include "tree_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "atomic_file.h"
#include "file_access.h"

namespace abx::plugins::files {

sdk::Result<std::vector<DirEntry>> readDirectory(const sdk::PathGuard& guard,
                                                 std::string_view endpoint,
                                                 const std::string& dir) {
  auto fd = openDirectory(guard, endpoint, dir, sdk::PathOp::list);
  if (!fd) return fd.status();
  DIR* d = ::fdopendir(fd->get());
  if (!d) return osError(errno, dir);
  fd->release();  // owned by the DIR* now
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  std::sort(names.begin(), names.end());

  std::vector<DirEntry> out;
  out.reserve(names.size());
  for (auto& name : names) {
    DirEntry entry;
    if (::fstatat(::dirfd(d), name.c_str(), &entry.lst, AT_SYMLINK_NOFOLLOW) != 0) continue;
    entry.path = joinPath(dir, name);
    // The guard judges every entry: deny globs, and where a link leads.
    auto verdict = guard.check(endpoint, entry.path, sdk::PathOp::read);
    if (!verdict.allowed) continue;
    entry.is_link = S_ISLNK(entry.lst.st_mode);
    if (entry.is_link) {
      entry.target = verdict.resolved;
      entry.target_exists = ::stat(entry.target.c_str(), &entry.st) == 0;
    } else {
      entry.st = entry.lst;
      entry.target_exists = true;
    }
    entry.name = std::move(name);
    out.push_back(std::move(entry));
  }
  ::closedir(d);
  return out;
}

namespace {

bool walkInto(const sdk::PathGuard& guard, std::string_view endpoint, const std::string& dir,
              const std::string& relative,
              const std::function<Visit(const DirEntry&, const std::string&)>& visit) {
  auto entries = readDirectory(guard, endpoint, dir);
  if (!entries) return true;  // unreadable: nothing below it
  for (const auto& entry : *entries) {
    std::string rel = relative.empty() ? entry.name : relative + "/" + entry.name;
    Visit v = visit(entry, rel);
    if (v == Visit::stop) return false;
    if (v == Visit::skip_children || entry.is_link || !S_ISDIR(entry.lst.st_mode)) continue;
    if (!walkInto(guard, endpoint, entry.path, rel, visit)) return false;
  }
  return true;
}

}  // namespace

bool walkTree(const sdk::PathGuard& guard, std::string_view endpoint, const std::string& root,
              const std::function<Visit(const DirEntry&, const std::string& relative)>& visit) {
  return walkInto(guard, endpoint, root, "", visit);
}

}  // namespace abx::plugins::files
