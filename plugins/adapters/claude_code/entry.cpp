// The one exported symbol of abx_adapter_claude_code.so: the plugin that provides the claude-code
// runtime.
#include "abx/sdk/declare_adapter.h"
#include "claude_code_adapter.h"

ABX_DECLARE_ADAPTER(abx::plugins::adapters::ClaudeCodeAdapter, "abx.adapter.claude_code", "1.0.0")
