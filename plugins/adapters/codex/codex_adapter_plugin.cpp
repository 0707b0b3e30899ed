// CodexAdapterPlugin: registers the codex runtime with the host.
#include "codex_adapter_plugin.h"

#include "abx/sdk/services.h"

namespace abx::plugins::adapters {

sdk::Status CodexAdapterPlugin::start(sdk::HostContext& host) {
  return host.services().provide<sdk::agents::AgentAdapter>(CodexAdapter::kName, adapter_);
}

std::unique_ptr<sdk::Plugin> makeCodexAdapterPlugin(sdk::HostContext&) {
  return std::make_unique<CodexAdapterPlugin>();
}

}  // namespace abx::plugins::adapters
