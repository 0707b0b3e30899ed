// The one exported symbol of abx_agents.so.
#include "abx/sdk/declare_plugin.h"
#include "agents_plugin.h"
#include "agents_settings.h"

// The settings schema is JSON text: ABX_DECLARE_PLUGIN takes a string
// constant, read by the loader before the plugin exists.
ABX_DECLARE_PLUGIN(abx::plugins::agents::makeAgentsPlugin, "abx.agents", "1.0.0",
                   ABX_KIND_CAPABILITY, abx::plugins::agents::kAgentsSettingsSchema)
