// The one exported symbol of abx_dev_tools.so.
#include "abx/sdk/declare_plugin.h"
#include "dev_tools_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::dev_tools::makeDevToolsPlugin, "abx.dev_tools", "1.0.0",
                   ABX_KIND_CAPABILITY,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
