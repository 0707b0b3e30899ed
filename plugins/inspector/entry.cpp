// The one exported symbol of abx_inspector.so.
#include "abx/sdk/declare_plugin.h"
#include "inspector_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::inspector::makeInspectorPlugin, "abx.inspector", "1.0.0",
                   ABX_KIND_CAPABILITY,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
