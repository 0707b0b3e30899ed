// ClaudeCodePlugin: registers the claude-code runtime.
#include "claude_code_plugin.h"

#include <unistd.h>

#include "abx/sdk/services.h"

namespace abx::plugins::adapters {

// The CLI runs with the server's uid, so the server's uid decides whether
// Claude needs IS_SANDBOX=1 for bypassPermissions.
ClaudeCodePlugin::ClaudeCodePlugin() : adapter_(::geteuid() == 0) {}

sdk::Status ClaudeCodePlugin::start(sdk::HostContext& host) {
  return host.services().provide<sdk::agents::AgentAdapter>(ClaudeCodeAdapter::kName, adapter_);
}

std::unique_ptr<sdk::Plugin> makeClaudeCodePlugin(sdk::HostContext&) {
  return std::make_unique<ClaudeCodePlugin>();
}

}  // namespace abx::plugins::adapters
