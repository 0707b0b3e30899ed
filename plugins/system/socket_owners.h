// Which process owns a socket inode: found by reading the /proc/<pid>/fd
// links ("socket:[12345]"). Only processes whose fd directory this server
// may read are seen (its own user's, or all of them as root).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace abx::plugins::system {

/** 12345 for "socket:[12345]"; nullopt for any other link text. */
std::optional<std::uint64_t> socketInode(std::string_view link);

/**
 * Maps each of @p inodes (0 is ignored) to the lowest pid holding it, by
 * scanning @p proc_root/<pid>/fd; unreadable processes are skipped. Stops
 * early once every inode was found.
 */
std::map<std::uint64_t, int> findSocketOwners(const std::set<std::uint64_t>& inodes,
                                              const std::string& proc_root = "/proc");

}  // namespace abx::plugins::system
