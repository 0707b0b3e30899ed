// The abx.agents plugin: owns the `agents` group (off by default; spec
// "Enabling the group") and serves the hosted agent runtime's wires.
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"

namespace abx::plugins::agents {

class AgentsPlugin final : public sdk::Plugin {
 public:
  sdk::Status start(sdk::HostContext& host) override;
  void stop() noexcept override;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeAgentsPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::agents
