// The one exported symbol of abx_adapter_claude_code.so.
#include "abx/sdk/declare_plugin.h"
#include "claude_code_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::adapters::makeClaudeCodePlugin, "abx.adapter.claude_code", "1.0.0",
                   ABX_KIND_ADAPTER,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
