// The one exported symbol of abx_adapter_qwen_code.so: the plugin that provides the qwen-code
// runtime.
#include "abx/sdk/declare_adapter.h"
#include "qwen_code_adapter.h"

ABX_DECLARE_ADAPTER(abx::plugins::adapters::QwenCodeAdapter, "abx.adapter.qwen_code", "1.0.0")
