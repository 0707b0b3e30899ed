// The abx.adapter.command plugin: provides CommandAdapter as the
// abx.agent_adapter.v1 service "command", unless the operator turned the
// command runtime off with ABX_AGENTS_ALLOW_COMMAND=0.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "command_adapter.h"

namespace abx::plugins::adapters {

/**
 * ABX_AGENTS_ALLOW_COMMAND (agents spec §9.10; default on): "0", "false",
 * "no" or "off" (any case) turn it off; anything else, or unset, leaves it on.
 */
bool commandRuntimeAllowed(const char* env_value);

class CommandAdapterPlugin final : public sdk::Plugin {
 public:
  /** Reads the `allow` setting (ABX_AGENTS_ALLOW_COMMAND) once, at start. */
  sdk::Status start(sdk::HostContext& host) override;
  void stop() noexcept override {}
  bool provided() const { return provided_; }

 private:
  CommandAdapter adapter_;
  bool provided_ = false;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeCommandAdapterPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::adapters
