// The one exported symbol of abx_adapter_codex.so.
#include "abx/sdk/declare_plugin.h"
#include "codex_adapter_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::adapters::makeCodexAdapterPlugin, "abx.adapter.codex", "1.0.0",
                   ABX_KIND_ADAPTER,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
