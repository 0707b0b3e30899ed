// /proc/meminfo: the memory figures GET /system/info and GET
// /system/metrics report. "Available" is the kernel's MemAvailable estimate
// (what a new workload can get without swapping), not MemFree.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace abx::plugins::system {

struct MemInfo {
  std::uint64_t total_kb = 0;
  /** MemAvailable; on kernels older than 3.14, MemFree + Buffers + Cached. */
  std::uint64_t available_kb = 0;

  std::uint64_t totalMb() const { return total_kb / 1024; }
  std::uint64_t availableMb() const { return available_kb / 1024; }
  /** total - available, never negative. */
  std::uint64_t usedKb() const { return total_kb > available_kb ? total_kb - available_kb : 0; }
  std::uint64_t usedMb() const { return usedKb() / 1024; }
  /** used / total * 100 (0 when total is 0), not rounded. */
  double usedPercent() const;
};

/**
 * Parses `Key:   12345 kB` lines; lines that do not have that shape are
 * skipped. @return nullopt when MemTotal is missing (not a meminfo text).
 * Available is capped at total.
 */
std::optional<MemInfo> parseMeminfo(std::string_view text);

/** Reads and parses /proc/meminfo (or @p path). */
std::optional<MemInfo> readMeminfo(const char* path = "/proc/meminfo");

}  // namespace abx::plugins::system
