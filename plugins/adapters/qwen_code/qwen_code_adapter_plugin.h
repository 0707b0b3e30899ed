// The abx.adapter.qwen_code plugin: provides QwenCodeAdapter as the
// abx.agent_adapter.v1 service "qwen-code".
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "qwen_code_adapter.h"

namespace abx::plugins::adapters {

class QwenCodeAdapterPlugin final : public sdk::Plugin {
 public:
  sdk::Status start(sdk::HostContext& host) override;
  void stop() noexcept override {}

 private:
  QwenCodeAdapter adapter_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeQwenCodeAdapterPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::adapters
