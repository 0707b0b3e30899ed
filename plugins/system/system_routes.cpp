#include "system_routes.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "abx/sdk/json.h"
#include "abx/sdk/policy_limits.h"
#include "abx/sdk/subprocess.h"
#include "child_env.h"
#include "package_list.h"
#include "proc_text.h"
#include "rounded_number.h"
#include "socket_owners.h"

namespace abx::plugins::system {
namespace {

constexpr std::size_t kDefaultPackagesOutputBytes = 16u << 20;

SystemFacts gatherFacts(const SystemState& state) {
  SystemFacts facts;
  struct utsname names {};
  if (::uname(&names) == 0) {
    facts.os = names.sysname;
    facts.arch = names.machine;
    facts.hostname = names.nodename;
  }
  facts.cpu_count = std::max(0L, ::sysconf(_SC_NPROCESSORS_ONLN));
  facts.memory = readMeminfo();
  facts.disk = baseDirDiskUsage(state.base_dir);
  facts.python_version = state.python.get(
      [&] { return probePythonVersion(childEnv(*state.environment), kProbeTimeout); });
  return facts;
}

std::vector<Listener> fromSs(const sdk::ChildEnvironment& environment) {
  sdk::SpawnOptions options;
  options.argv = {"ss", "-tlnp"};
  options.env = childEnv(environment);
  options.cwd = std::string(kNeutralDir);
  options.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = kProbeTimeout;
  limits.max_output_bytes = 4u << 20;
  auto run = sdk::Subprocess::run(options, limits);
  if (!run || run->timed_out || run->exit_code != 0) return {};
  return parseSsListen(run->out);
}

}  // namespace

std::string systemInfoJson(const SystemFacts& facts) {
  const MemInfo memory = facts.memory.value_or(MemInfo{});
  const DiskUsage disk = facts.disk.value_or(DiskUsage{});
  sdk::JsonWriter w;
  w.beginObject()
      .member("os", facts.os)
      .member("arch", facts.arch)
      .member("cpu_count", static_cast<std::int64_t>(facts.cpu_count))
      .member("memory_total_mb", memory.totalMb())
      .member("memory_available_mb", memory.availableMb());
  w.key("disk_total_gb").raw(gibNumber(disk.total));
  w.key("disk_free_gb").raw(gibNumber(disk.free));
  if (facts.python_version)
    w.member("python_version", *facts.python_version);
  else
    w.key("python_version").null();
  return w.member("hostname", facts.hostname).endObject().take();
}

std::string metricsJson(const std::optional<LoadAverage>& load,
                        const std::optional<MemInfo>& memory, const std::optional<DiskUsage>& disk,
                        double uptime_seconds) {
  const LoadAverage l = load.value_or(LoadAverage{});
  const MemInfo m = memory.value_or(MemInfo{});
  const DiskUsage d = disk.value_or(DiskUsage{});
  sdk::JsonWriter w;
  w.beginObject();
  w.key("cpu_load_1m").raw(roundedNumber(l.one, 2));
  w.key("cpu_load_5m").raw(roundedNumber(l.five, 2));
  w.key("cpu_load_15m").raw(roundedNumber(l.fifteen, 2));
  w.member("memory_used_mb", m.usedMb()).member("memory_total_mb", m.totalMb());
  w.key("memory_percent").raw(roundedNumber(m.usedPercent(), 1));
  w.key("disk_used_gb").raw(gibNumber(d.used));
  w.key("disk_total_gb").raw(gibNumber(d.total));
  w.key("disk_percent").raw(roundedNumber(d.usedPercent(), 1));
  w.key("uptime_seconds").raw(roundedNumber(uptime_seconds, 1));
  return w.endObject().take();
}

std::string portsJson(const std::vector<Listener>& listeners) {
  sdk::JsonWriter w;
  w.beginObject().key("listening").beginArray();
  for (const auto& l : listeners) {
    w.beginObject().member("port", l.port).member("protocol", l.protocol);
    w.member("address", l.address);
    if (l.pid)
      w.member("pid", *l.pid);
    else
      w.key("pid").null();
    w.endObject();
  }
  return w.endArray().endObject().take();
}

std::vector<Listener> listeningSockets(const sdk::ChildEnvironment& environment) {
  ProcNetTcp v4, v6;
  if (auto text = readTextFile("/proc/net/tcp")) v4 = parseProcNetTcp(*text, "tcp");
  if (auto text = readTextFile("/proc/net/tcp6")) v6 = parseProcNetTcp(*text, "tcp6");
  if (v4.rows == 0 && v6.rows == 0) {
    auto listeners = fromSs(environment);
    sortListeners(listeners);
    return listeners;
  }
  std::vector<Listener> listeners = std::move(v4.listeners);
  listeners.insert(listeners.end(), std::make_move_iterator(v6.listeners.begin()),
                   std::make_move_iterator(v6.listeners.end()));
  std::set<std::uint64_t> inodes;
  for (const auto& l : listeners) inodes.insert(l.inode);
  auto owners = findSocketOwners(inodes);
  for (auto& l : listeners)
    if (auto it = owners.find(l.inode); it != owners.end()) l.pid = it->second;
  sortListeners(listeners);
  return listeners;
}

sdk::Response systemInfo(const SystemState& state, const sdk::Request&) {
  return sdk::Response::json(systemInfoJson(gatherFacts(state)));
}

sdk::Response systemMetrics(const SystemState& state, const sdk::Request&) {
  const std::chrono::duration<double> uptime = std::chrono::steady_clock::now() - state.started;
  return sdk::Response::json(
      metricsJson(readLoadavg(), readMeminfo(), baseDirDiskUsage(state.base_dir), uptime.count()));
}

sdk::Response listPorts(const SystemState& state, const sdk::Request&) {
  return sdk::Response::json(portsJson(listeningSockets(*state.environment)));
}

sdk::Response listPackages(const SystemState& state, const sdk::Request& request) {
  std::string manager(request.queryParam("manager").value_or("pip"));
  auto argv = packageListArgv(manager);
  if (!argv)
    return sdk::Response::error(
        400, "Unsupported package manager: '" + manager + "'; use 'pip' or 'npm'", "ValueError");

  sdk::SpawnOptions options;
  options.argv = std::move(*argv);
  options.env = childEnv(*state.environment);
  options.cwd = std::string(kNeutralDir);
  options.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = sdk::policyTimeout(request.policy).value_or(kDefaultPackagesTimeout);
  limits.max_output_bytes =
      sdk::policyOutputCap(request.policy).value_or(kDefaultPackagesOutputBytes);
  limits.ladder = {std::chrono::milliseconds(500), std::chrono::milliseconds(500)};
  auto run = sdk::Subprocess::run(options, limits);
  if (!run) {
    // The manager is not installed: an empty list, not an error (spec §4.6).
    if (run.status().type() == "FileNotFoundError")
      return sdk::Response::json(packagesJson(manager, {}));
    return sdk::Response::error(500, manager + " could not start: " + run.status().message(),
                                run.status().type().empty() ? "OSError" : run.status().type());
  }
  auto packages = interpretPackageRun(manager, *run, limits.timeout);
  if (!packages)
    return sdk::Response::error(500, packages.status().message(), packages.status().type());
  return sdk::Response::json(packagesJson(manager, *packages));
}

}  // namespace abx::plugins::system
