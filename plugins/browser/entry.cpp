// The one exported symbol of abx_browser.so.
#include "abx/sdk/declare_plugin.h"
#include "browser_plugin.h"

ABX_DECLARE_PLUGIN(abx::plugins::browser::makeBrowserPlugin, "abx.browser", "1.0.0",
                   ABX_KIND_CAPABILITY,
                   R"({"type":"object","additionalProperties":false,"properties":{}})")
