// Handlers share one SystemState (start time for uptime, base dir, the
// cached python version); they run on worker threads concurrently.
#include "system_plugin.h"

#include "abx/sdk/route_table.h"
#include "env_routes.h"
#include "system_routes.h"
#include "system_vocabulary.h"

namespace abx::plugins::system {
namespace {

constexpr const char* kGroup = "system";

}  // namespace

sdk::Status SystemPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {kGroup, false,
           "System facts: OS, memory, disk, environment, listening ports, packages, metrics",
           systemParams()});
      !s)
    return s;

  auto state = std::make_shared<SystemState>();
  state->base_dir = host.info().base_dir;
  state->environment = &host.environment();
  auto env = std::make_shared<EnvContext>();
  env->environment = &host.environment();
  env->redactor = &host.redactor();
  env->host_refuses = [environment = env->environment](std::string_view name) {
    return environment->isProtected(name);
  };

  std::shared_ptr<const SystemState> facts = state;
  std::shared_ptr<const EnvContext> variables = env;
  const std::vector<std::string> read{"system:read"}, write{"system:write"};
  auto& routes = host.routes();
  if (auto s = sdk::addRoutes(routes, kGroup, facts,
                              {{"GET", "/system/info", "system_info",
                                "OS, CPU, memory, disk and Python version", read, &systemInfo}});
      !s)
    return s;
  if (auto s = sdk::addRoutes(
          routes, kGroup, variables,
          {{"GET", "/env", "env_get", "Environment of child processes (sensitive names hidden)",
            read, &getEnv},
           {"POST", "/env", "env_set",
            "Set environment variables for child processes started afterwards", write, &setEnv}});
      !s)
    return s;
  if (auto s = sdk::addRoutes(
          routes, kGroup, facts,
          {{"GET", "/ports", "ports", "Listening TCP ports", read, &listPorts},
           {"GET", "/packages", "packages", "Installed pip or npm packages", read, &listPackages},
           {"GET", "/system/metrics", "system_metrics", "Load averages, memory, disk and uptime",
            read, &systemMetrics}});
      !s)
    return s;
  return sdk::Status::ok();
}

std::unique_ptr<sdk::Plugin> makeSystemPlugin(sdk::HostContext&) {
  return std::make_unique<SystemPlugin>();
}

}  // namespace abx::plugins::system
