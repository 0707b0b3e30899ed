// The one exported symbol of abx_mcp.so.
#include "abx/sdk/declare_plugin.h"
#include "mcp_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::mcp::makeMcpPlugin, "abx.mcp", "1.0.0", ABX_KIND_CAPABILITY,
                   abx::plugins::mcp::kMcpSettingsSchema)
