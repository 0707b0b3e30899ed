// A service registry holding one adapter ("fake", binary fake-cli), for the
// AgentCatalog tests: what a model name resolves to without loading plugins.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/services.h"

namespace abx::plugins::agents {

class OneAdapter final : public sdk::agents::AgentAdapter {
 public:
  std::string name() const override { return "fake"; }
  std::string binary() const override { return "fake-cli"; }
  sdk::agents::AdapterCapabilities capabilities() const override { return {}; }
  std::vector<std::string> validate(const sdk::agents::AgentSpec&) const override { return {}; }
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext&) const override {
    return sdk::agents::Invocation{};
  }
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext&) const override {
    return nullptr;
  }
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec&) const override { return {}; }
};

class OneAdapterRegistry final : public sdk::ServiceRegistry {
 public:
  sdk::Status provideRaw(std::string_view, std::string_view, void*) override {
    return sdk::Status::ok();
  }
  void* findRaw(std::string_view id, std::string_view) const override {
    return id == sdk::agents::AgentAdapter::kServiceId ? const_cast<OneAdapter*>(&adapter_)
                                                       : nullptr;
  }
  std::vector<std::pair<std::string, void*>> allRaw(std::string_view id) const override {
    if (id != sdk::agents::AgentAdapter::kServiceId) return {};
    return {{"fake", const_cast<OneAdapter*>(&adapter_)}};
  }

 private:
  OneAdapter adapter_;
};

}  // namespace abx::plugins::agents
