// QwenCodeAdapterPlugin: registers the qwen-code runtime.
#include "qwen_code_adapter_plugin.h"

#include "abx/sdk/services.h"

namespace abx::plugins::adapters {

sdk::Status QwenCodeAdapterPlugin::start(sdk::HostContext& host) {
  return host.services().provide<sdk::agents::AgentAdapter>(QwenCodeAdapter::kName, adapter_);
}

std::unique_ptr<sdk::Plugin> makeQwenCodeAdapterPlugin(sdk::HostContext&) {
  return std::make_unique<QwenCodeAdapterPlugin>();
}

}  // namespace abx::plugins::adapters
