// Handlers share one SystemState (start time for uptime, base dir, the
// cached python version); they run on worker threads concurrently.
#include "system_plugin.h"

#include "env_routes.h"
#include "system_routes.h"
#include "system_vocabulary.h"

namespace abx::plugins::system {
namespace {

constexpr const char* kGroup = "system";

sdk::RouteSpec route(std::string method, std::string path, std::string endpoint,
                     std::string summary, std::string scope, sdk::Handler handler) {
  sdk::RouteSpec spec;
  spec.method = std::move(method);
  spec.path = std::move(path);
  spec.endpoint = std::move(endpoint);
  spec.group = kGroup;
  spec.summary = std::move(summary);
  spec.scopes = {std::move(scope)};
  spec.handler = std::move(handler);
  return spec;
}

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
  env->host_refuses = hostRefusesName;

  std::vector<sdk::RouteSpec> routes;
  routes.push_back(route("GET", "/system/info", "system_info",
                         "OS, CPU, memory, disk and Python version", "system:read",
                         [state](const sdk::Request& r) { return systemInfo(*state, r); }));
  routes.push_back(route("GET", "/env", "env_get",
                         "Environment of child processes (sensitive names hidden)", "system:read",
                         [env](const sdk::Request& r) { return getEnv(*env, r); }));
  routes.push_back(route("POST", "/env", "env_set",
                         "Set environment variables for child processes started afterwards",
                         "system:write", [env](const sdk::Request& r) { return setEnv(*env, r); }));
  routes.push_back(route("GET", "/ports", "ports", "Listening TCP ports", "system:read",
                         [state](const sdk::Request& r) { return listPorts(*state, r); }));
  routes.push_back(route("GET", "/packages", "packages", "Installed pip or npm packages",
                         "system:read",
                         [state](const sdk::Request& r) { return listPackages(*state, r); }));
  routes.push_back(route("GET", "/system/metrics", "system_metrics",
                         "Load averages, memory, disk and uptime", "system:read",
                         [state](const sdk::Request& r) { return systemMetrics(*state, r); }));
  for (auto& spec : routes)
    if (auto s = host.routes().add(std::move(spec)); !s) return s;
  return sdk::Status::ok();
}

std::unique_ptr<sdk::Plugin> makeSystemPlugin(sdk::HostContext&) {
  return std::make_unique<SystemPlugin>();
}

}  // namespace abx::plugins::system
