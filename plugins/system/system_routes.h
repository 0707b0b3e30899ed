// GET /system/info, GET /system/metrics, GET /ports and GET /packages: the
// handlers and the pure body builders they use (tested on fixed figures).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/http.h"
#include "disk_usage.h"
#include "proc_loadavg.h"
#include "proc_meminfo.h"
#include "proc_net_tcp.h"
#include "python_version.h"

namespace abx::plugins::system {

/** What the handlers share. THREAD: handlers run concurrently; all members are safe. */
struct SystemState {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::string base_dir;
  sdk::ChildEnvironment* environment = nullptr;
  mutable PythonVersionCache python;  // thread-safe; filled on first use
};

/** Default timeout of GET /packages when the policy sets none. */
inline constexpr std::chrono::milliseconds kDefaultPackagesTimeout{30000};
/** Timeout of `python3 --version` and of the `ss` fallback. */
inline constexpr std::chrono::milliseconds kProbeTimeout{5000};

struct SystemFacts {
  std::string os, arch, hostname;
  long cpu_count = 0;
  std::optional<MemInfo> memory;
  std::optional<DiskUsage> disk;
  std::optional<std::string> python_version;
};

/** The body of GET /system/info; absent figures are 0. */
std::string systemInfoJson(const SystemFacts& facts);

/** The body of GET /system/metrics; absent figures are 0. */
std::string metricsJson(const std::optional<LoadAverage>& load,
                        const std::optional<MemInfo>& memory, const std::optional<DiskUsage>& disk,
                        double uptime_seconds);

/** The body of GET /ports. */
std::string portsJson(const std::vector<Listener>& listeners);

/** /proc/net/tcp + tcp6 with owners, or `ss -tlnp` when both files have no rows. */
std::vector<Listener> listeningSockets(const sdk::ChildEnvironment& environment);

sdk::Response systemInfo(const SystemState& state, const sdk::Request& request);
sdk::Response systemMetrics(const SystemState& state, const sdk::Request& request);
sdk::Response listPorts(const SystemState& state, const sdk::Request& request);
sdk::Response listPackages(const SystemState& state, const sdk::Request& request);

}  // namespace abx::plugins::system
