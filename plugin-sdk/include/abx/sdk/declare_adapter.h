// ABX_DECLARE_ADAPTER: an adapter plugin is its AgentAdapter class plus one
// line in entry.cpp. The generated plugin provides one default-constructed
// adapter as the abx.agent_adapter.v1 service named adapter.name(), for the
// plugin's whole life.
#pragma once

#include <memory>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/declare_plugin.h"
#include "abx/sdk/host_context.h"
#include "abx/sdk/services.h"

namespace abx::sdk {

/** The plugin ABX_DECLARE_ADAPTER declares: it owns one @p Adapter and provides it. */
template <class Adapter>
class AdapterPlugin final : public Plugin {
 public:
  Status start(HostContext& host) override {
    return host.services().provide<agents::AgentAdapter>(adapter_.name(), adapter_);
  }

 private:
  Adapter adapter_;
};

}  // namespace abx::sdk

/**
 * Declares the plugin of the adapter class @p Type (default-constructible,
 * derived from abx::sdk::agents::AgentAdapter) with plugin id @p id and
 * version @p version; an adapter plugin takes no settings. Put it alone in
 * the plugin's entry.cpp, like ABX_DECLARE_PLUGIN.
 */
#define ABX_DECLARE_ADAPTER(Type, id, version)                                         \
  namespace {                                                                          \
  std::unique_ptr<abx::sdk::Plugin> abx_make_adapter_plugin_(abx::sdk::HostContext&) { \
    return std::make_unique<abx::sdk::AdapterPlugin<Type>>();                          \
  }                                                                                    \
  }                                                                                    \
  ABX_DECLARE_PLUGIN(abx_make_adapter_plugin_, id, version, ABX_KIND_ADAPTER,          \
                     R"({"type":"object","additionalProperties":false,"properties":{}})")
