// The one exported symbol of abx_commands.so.
#include "abx/sdk/declare_plugin.h"
#include "commands_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::commands::makeCommandsPlugin, "abx.commands", "1.0.0",
                   ABX_KIND_CAPABILITY,
                   R"({"type":"object","additionalProperties":false,"properties":{)"
                   R"("commands_file":{"type":"string","description":)"
                   R"("Declarative commands YAML; relative to the manifest's directory"}}})")
