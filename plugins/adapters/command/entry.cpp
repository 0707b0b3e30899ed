// The one exported symbol of abx_adapter_command.so.
#include "abx/sdk/declare_plugin.h"
#include "command_adapter_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::adapters::makeCommandAdapterPlugin, "abx.adapter.command", "1.0.0",
                   ABX_KIND_ADAPTER,
                   R"({"type":"object","additionalProperties":false,"properties":{)"
                   R"("allow":{"type":"string","x-env":"ABX_AGENTS_ALLOW_COMMAND",)"
                   R"("description":"0, false, no or off: runtime command is not provided"}}})")
