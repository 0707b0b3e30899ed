// The abx.adapter.claude_code plugin: provides ClaudeCodeAdapter as the
// abx.agent_adapter.v1 service "claude-code".
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "claude_code_adapter.h"

namespace abx::plugins::adapters {

class ClaudeCodePlugin final : public sdk::Plugin {
 public:
  ClaudeCodePlugin();
  sdk::Status start(sdk::HostContext& host) override;
  void stop() noexcept override {}

 private:
  ClaudeCodeAdapter adapter_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeClaudeCodePlugin(sdk::HostContext& host);

}  // namespace abx::plugins::adapters
