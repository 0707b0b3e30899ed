// The abx.adapter.cursor plugin: provides CursorAdapter as the
// abx.agent_adapter.v1 service "cursor".
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "cursor_adapter.h"

namespace abx::plugins::adapters {

class CursorAdapterPlugin final : public sdk::Plugin {
 public:
  sdk::Status start(sdk::HostContext& host) override;
  void stop() noexcept override {}

 private:
  CursorAdapter adapter_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeCursorAdapterPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::adapters
