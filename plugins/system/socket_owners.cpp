#include "socket_owners.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "proc_text.h"

namespace abx::plugins::system {
namespace {

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using Dir = std::unique_ptr<DIR, DirCloser>;

std::vector<int> numericEntries(const std::string& path) {
  std::vector<int> out;
  Dir dir(::opendir(path.c_str()));
  if (!dir) return out;
  while (const dirent* entry = ::readdir(dir.get())) {
    auto value = parseUnsigned(entry->d_name);
    if (value && *value <= 0x7FFFFFFF) out.push_back(static_cast<int>(*value));
  }
  return out;
}

}  // namespace

std::optional<std::uint64_t> socketInode(std::string_view link) {
  constexpr std::string_view kPrefix = "socket:[";
  if (!link.starts_with(kPrefix) || !link.ends_with(']')) return std::nullopt;
  return parseUnsigned(link.substr(kPrefix.size(), link.size() - kPrefix.size() - 1));
}

std::map<std::uint64_t, int> findSocketOwners(const std::set<std::uint64_t>& inodes,
                                              const std::string& proc_root) {
  std::map<std::uint64_t, int> owners;
  std::size_t wanted = inodes.size() - inodes.count(0);
  if (wanted == 0) return owners;
  auto pids = numericEntries(proc_root);
  std::sort(pids.begin(), pids.end());
  for (int pid : pids) {
    const std::string fd_dir = proc_root + "/" + std::to_string(pid) + "/fd";
    for (int fd : numericEntries(fd_dir)) {
      const std::string link_path = fd_dir + "/" + std::to_string(fd);
      char target[64];
      ssize_t n = ::readlink(link_path.c_str(), target, sizeof target);
      if (n <= 0 || static_cast<std::size_t>(n) >= sizeof target) continue;
      auto inode = socketInode(std::string_view(target, static_cast<std::size_t>(n)));
      if (!inode || *inode == 0 || !inodes.count(*inode)) continue;
      if (owners.emplace(*inode, pid).second && owners.size() == wanted) return owners;
    }
  }
  return owners;
}

}  // namespace abx::plugins::system
