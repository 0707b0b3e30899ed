// The one exported symbol of abx_adapter_codex.so: the plugin that provides the codex runtime.
#include "abx/sdk/declare_adapter.h"
#include "codex_adapter.h"

ABX_DECLARE_ADAPTER(abx::plugins::adapters::CodexAdapter, "abx.adapter.codex", "1.0.0")
