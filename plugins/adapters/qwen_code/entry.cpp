// The one exported symbol of abx_adapter_qwen_code.so.
#include "abx/sdk/declare_plugin.h"
#include "qwen_code_adapter_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::adapters::makeQwenCodeAdapterPlugin, "abx.adapter.qwen_code",
                   "1.0.0", ABX_KIND_ADAPTER,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
