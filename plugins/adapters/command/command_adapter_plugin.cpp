// CommandAdapterPlugin: registers the command runtime, or leaves it out.
#include "command_adapter_plugin.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "abx/sdk/logger.h"
#include "abx/sdk/services.h"

namespace abx::plugins::adapters {

bool commandRuntimeAllowed(const char* env_value) {
  if (!env_value) return true;
  std::string v(env_value);
  std::transform(v.begin(), v.end(), v.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return !(v == "0" || v == "false" || v == "no" || v == "off");
}

sdk::Status CommandAdapterPlugin::start(sdk::HostContext& host) {
  // Not providing the adapter at all (rather than refusing turns) makes the
  // agents plugin report `runtime: command` as an unknown runtime.
  auto allow = host.settings().get("allow");
  if (!commandRuntimeAllowed(allow ? allow->c_str() : nullptr)) {
    host.log().info("runtime 'command' is off (ABX_AGENTS_ALLOW_COMMAND=0); not provided");
    return sdk::Status::ok();
  }
  auto status = host.services().provide<sdk::agents::AgentAdapter>(CommandAdapter::kName, adapter_);
  provided_ = status.isOk();
  return status;
}

std::unique_ptr<sdk::Plugin> makeCommandAdapterPlugin(sdk::HostContext&) {
  return std::make_unique<CommandAdapterPlugin>();
}

}  // namespace abx::plugins::adapters
