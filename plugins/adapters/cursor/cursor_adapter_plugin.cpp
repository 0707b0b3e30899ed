// CursorAdapterPlugin: registers the cursor runtime.
#include "cursor_adapter_plugin.h"

#include "abx/sdk/services.h"

namespace abx::plugins::adapters {

sdk::Status CursorAdapterPlugin::start(sdk::HostContext& host) {
  return host.services().provide<sdk::agents::AgentAdapter>(CursorAdapter::kName, adapter_);
}

std::unique_ptr<sdk::Plugin> makeCursorAdapterPlugin(sdk::HostContext&) {
  return std::make_unique<CursorAdapterPlugin>();
}

}  // namespace abx::plugins::adapters
