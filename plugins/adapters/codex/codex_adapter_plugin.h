// The abx.adapter.codex plugin: provides CodexAdapter as the
// abx.agent_adapter.v1 service "codex".
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "codex_adapter.h"

namespace abx::plugins::adapters {

class CodexAdapterPlugin final : public sdk::Plugin {
 public:
  sdk::Status start(sdk::HostContext& host) override;
  void stop() noexcept override {}

 private:
  CodexAdapter adapter_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeCodexAdapterPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::adapters
