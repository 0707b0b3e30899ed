// The abx.dev_tools plugin: owns the opt-in `dev_tools` group and serves
// POST /code/run, GET /git/status and GET /git/diff (spec §4.7;
// docs/dev_tools.md).
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"

namespace abx::plugins::dev_tools {

class DevToolsPlugin final : public sdk::Plugin {
 public:
  /** Declares the group (opt-in) and adds the three routes. */
  sdk::Status start(sdk::HostContext& host) override;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeDevToolsPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::dev_tools
