// Disk figures of GET /system/info and GET /system/metrics: statvfs(3) of the
// server's base directory (the sandbox's working area), or of "/" when the
// base directory does not exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace abx::plugins::system {

struct DiskUsage {
  std::string path;           /**< the directory measured */
  std::uint64_t total = 0;    /**< bytes: f_blocks * f_frsize */
  std::uint64_t free = 0;     /**< bytes available to unprivileged users: f_bavail */
  std::uint64_t used = 0;     /**< bytes: (f_blocks - f_bfree) * f_frsize */
  double usedPercent() const; /**< used / total * 100, 0 when total is 0 */
};

/** statvfs of @p path; nullopt when it fails. */
std::optional<DiskUsage> diskUsage(const std::string& path);

/** statvfs of @p base_dir, or of "/" when @p base_dir is empty or fails. */
std::optional<DiskUsage> baseDirDiskUsage(const std::string& base_dir);

}  // namespace abx::plugins::system
