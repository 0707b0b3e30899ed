// The one exported symbol of abx_adapter_cursor.so.
#include "abx/sdk/declare_plugin.h"
#include "cursor_adapter_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::adapters::makeCursorAdapterPlugin, "abx.adapter.cursor", "1.0.0",
                   ABX_KIND_ADAPTER,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
