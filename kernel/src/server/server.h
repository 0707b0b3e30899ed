// Server: assembles the kernel — services, plugins, pipeline, HTTP — runs
// until SIGTERM/SIGINT, then drains and stops plugins in reverse order.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/core_endpoints.h"
#include "loader/kernel_services.h"
#include "loader/manifest.h"
#include "loader/plugin_loader.h"
#include "server/server_config.h"

namespace abx::kernel {

inline constexpr const char* kServerVersion = "0.1.0";

/** Loads every manifest entry in order into @p records (state, error). */
struct BootResult {
  bool ok = true;
  std::string fatal; /**< the one line printed when a required plugin fails */
};

class Server {
 public:
  explicit Server(ServerConfig config);
  ~Server();

  /** Runs until a termination signal. @return the process exit code. */
  int run();

 private:
  BootResult loadPlugins(RouteTable& routes);

  ServerConfig config_;
  std::unique_ptr<KernelServices> services_;
  std::deque<PluginRecord> plugins_;
  std::vector<GroupRecord> groups_;
  CoreState core_;
  std::vector<std::unique_ptr<Dispatch>> dispatches_;  // kept until exit
};

}  // namespace abx::kernel
