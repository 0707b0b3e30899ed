// The abx.inspector plugin: owns the `inspector` group (on by default) and
// serves the inspector page, GET /ui and GET /ui/{asset} (docs/inspector.md).
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"

namespace abx::plugins::inspector {

class InspectorPlugin final : public sdk::Plugin {
 public:
  /** Declares the group and adds the two routes. */
  sdk::Status start(sdk::HostContext& host) override;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeInspectorPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::inspector
