// The one exported symbol of abx_terminal.so.
#include "abx/sdk/declare_plugin.h"
#include "terminal_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::terminal::makeTerminalPlugin, "abx.terminal", "1.0.0",
                   ABX_KIND_CAPABILITY, abx::plugins::terminal::kSettingsSchema)
