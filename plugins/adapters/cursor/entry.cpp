// The one exported symbol of abx_adapter_cursor.so: the plugin that provides the cursor runtime.
#include "abx/sdk/declare_adapter.h"
#include "cursor_adapter.h"

ABX_DECLARE_ADAPTER(abx::plugins::adapters::CursorAdapter, "abx.adapter.cursor", "1.0.0")
