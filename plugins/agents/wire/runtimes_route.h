// GET /v1/agents/runtimes (agents spec "Install & health"): every adapter
// the host registered — name, aliases, implemented, installed, default,
// path, version (its health argv, 10 s timeout, cached for a minute),
// experimental and capabilities.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abx/sdk/routes.h"
#include "abx/sdk/services.h"

namespace abx::plugins::agents {

struct RuntimeHealth {
  std::string path;
  std::string version;
  std::chrono::steady_clock::time_point at;
};

struct RuntimesContext {
  const sdk::ServiceRegistry* services = nullptr;
  /** The environment the health check runs in (the agents' allowlisted PATH). */
  std::function<std::vector<std::string>()> env;
  /** Each runtime's last health check, by name (kept a minute). */
  mutable std::mutex health_mutex;
  mutable std::map<std::string, RuntimeHealth> health;
};

sdk::Status addRuntimesRoute(sdk::RouteRegistry& registry,
                             std::shared_ptr<const RuntimesContext> context);

}  // namespace abx::plugins::agents
