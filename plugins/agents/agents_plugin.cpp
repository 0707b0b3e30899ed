#include "agents_plugin.h"

namespace abx::plugins::agents {

sdk::Status AgentsPlugin::start(sdk::HostContext& host) {
  return host.routes().declareGroup(
      {"agents", true,
       "Hosted coding agents: /v1/responses, /v1/models and the Agents sessions wire"});
}

void AgentsPlugin::stop() noexcept {}

std::unique_ptr<sdk::Plugin> makeAgentsPlugin(sdk::HostContext&) {
  return std::make_unique<AgentsPlugin>();
}

}  // namespace abx::plugins::agents
