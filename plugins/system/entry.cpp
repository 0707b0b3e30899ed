// The one exported symbol of abx_system.so.
#include "abx/sdk/declare_plugin.h"
#include "system_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::system::makeSystemPlugin, "abx.system", "1.0.0",
                   ABX_KIND_CAPABILITY,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
