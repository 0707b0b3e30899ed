// The abx.commands plugin: owns the `commands` group, serves GET /commands
// and POST /commands/{name}, and registers the commands of the declarative
// commands file (setting `commands_file`) into the host's registry.
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"

namespace abx::plugins::commands {

class CommandsPlugin final : public sdk::Plugin {
 public:
  /** Declares the group, loads the commands file, adds the two routes. */
  sdk::Status start(sdk::HostContext& host) override;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeCommandsPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::commands
