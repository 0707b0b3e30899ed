#include "disk_usage.h"

#include <sys/statvfs.h>

namespace abx::plugins::system {

double DiskUsage::usedPercent() const {
  if (total == 0) return 0.0;
  return static_cast<double>(used) * 100.0 / static_cast<double>(total);
}

std::optional<DiskUsage> diskUsage(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return std::nullopt;
  const std::uint64_t unit = st.f_frsize ? st.f_frsize : st.f_bsize;
  DiskUsage usage;
  usage.path = path;
  usage.total = static_cast<std::uint64_t>(st.f_blocks) * unit;
  usage.free = static_cast<std::uint64_t>(st.f_bavail) * unit;
  const std::uint64_t blocks_used = st.f_blocks > st.f_bfree ? st.f_blocks - st.f_bfree : 0;
  usage.used = blocks_used * unit;
  return usage;
}

std::optional<DiskUsage> baseDirDiskUsage(const std::string& base_dir) {
  if (!base_dir.empty())
    if (auto usage = diskUsage(base_dir)) return usage;
  return diskUsage("/");
}

}  // namespace abx::plugins::system
