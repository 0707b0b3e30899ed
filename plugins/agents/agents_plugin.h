// The abx.agents plugin: owns the `agents` group (opt-in; agents spec
// "Enabling the group"), builds the AgentRuntime from ABX_AGENTS_* settings
// and the definitions in ABX_AGENTS_CONFIG, and serves the Responses wire
// (/v1/responses, /v1/models). Adapters arrive from adapter plugins through
// the service registry (abx.agent_adapter.v1). docs/agents.md describes it.
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "agent_catalog.h"
#include "runtime/agent_runtime.h"
#include "state/state_sync.h"
#include "vaults/vault_store.h"
#include "wire/agents_routes.h"
#include "wire/response_store.h"
#include "wire/responses_routes.h"
#include "wire/runtimes_route.h"
#include "wire/session_stream.h"
#include "wire/sessions_routes.h"
#include "wire/vaults_routes.h"

namespace abx::plugins::agents {

class AgentsPlugin final : public sdk::Plugin {
 public:
  sdk::Status start(sdk::HostContext& host) override;
  /** Warns about definitions whose runtime no adapter provides. */
  void policyApplied() noexcept override;
  /** Cancels running turns (kill ladder) and joins the turn workers. */
  void stop() noexcept override;

 private:
  // start()'s stages, in order: definitions and vaults, what
  // agents_state.json kept of them, the turn runtime, then the wires' routes.
  sdk::Status buildCatalog(sdk::HostContext& host);
  sdk::Status buildState(sdk::HostContext& host);
  sdk::Status buildRuntime(sdk::HostContext& host);
  sdk::Status addWireRoutes(sdk::HostContext& host);

  sdk::HostContext* host_ = nullptr;
  std::vector<std::string> startup_env_;
  std::unique_ptr<AgentCatalog> catalog_;
  std::unique_ptr<AgentRuntime> runtime_;
  std::unique_ptr<ResponseStore> store_;
  std::shared_ptr<ResponsesContext> context_;
  std::unique_ptr<SessionStreams> streams_;
  std::unique_ptr<SessionKeys> keys_;
  std::shared_ptr<SessionsContext> sessions_context_;
  std::shared_ptr<RuntimesContext> runtimes_context_;
  std::shared_ptr<AgentsRoutesContext> agents_context_;
  std::unique_ptr<VaultStore> vaults_;
  std::unique_ptr<SessionOverridesStore> overrides_;
  std::shared_ptr<VaultsContext> vaults_context_;
  std::unique_ptr<AgentsStateSync> state_;
  std::vector<std::string> definition_names_;
  bool warned_ = false;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeAgentsPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::agents
