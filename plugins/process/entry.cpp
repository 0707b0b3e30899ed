// The one exported symbol of abx_process.so.
#include "abx/sdk/declare_plugin.h"
#include "process_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::process::makeProcessPlugin, "abx.process", "1.0.0",
                   ABX_KIND_CAPABILITY,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
