// The abx.system plugin: owns the `system` group (on by default) and serves
// GET /system/info, GET /env, POST /env, GET /ports, GET /packages and
// GET /system/metrics (spec §4.6).
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"

namespace abx::plugins::system {

class SystemPlugin final : public sdk::Plugin {
 public:
  /** Declares the group and adds the six routes. */
  sdk::Status start(sdk::HostContext& host) override;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeSystemPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::system
