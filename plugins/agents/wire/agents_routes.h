// The agent definitions on the Agents wire (openai-wire.md §9.1, §9.2;
// agents spec §9.4, §9.10): POST /v1/agents, GET /v1/agents[/{id}],
// POST /v1/agents/{id}, DELETE /v1/agents/{id}. A body is the HTTP JSON
// spelling of the definition schema; the id is the definition's name.
// Secrets are write-only (GET shows "***"). ABX_AGENTS_LOCK_DEFINITIONS=1
// makes the write routes 403. Definitions are shared operator configuration;
// a credential reference must name a vault its registrant may use.
#pragma once

#include <memory>
#include <vector>

#include "abx/sdk/logger.h"
#include "abx/sdk/redactor.h"
#include "abx/sdk/routes.h"
#include "agent_catalog.h"
#include "session_memory.h"
#include "vaults/vault_store.h"

namespace abx::plugins::agents {

struct AgentsRoutesContext {
  AgentCatalog* catalog = nullptr;
  const VaultStore* vaults = nullptr;     /**< what credential references may name */
  sdk::Redactor* host_redactor = nullptr; /**< guards the server's log lines */
  sdk::Logger* log = nullptr;
  bool locked = false; /**< ABX_AGENTS_LOCK_DEFINITIONS=1 */
};

/**
 * The AgentSession.Agent object of a session on @p definition: its name
 * (null for an unnamed one), the instructions and MCP tools each turn gets
 * (the definition's, then the session's inline ones), its model.
 */
std::string sessionAgentJson(const AgentCatalog::Definition& definition,
                             const SessionOverrides& overrides);

/** Register after the literal /v1/agents/sessions and /v1/agents/runtimes routes. */
sdk::Status addAgentsRoutes(sdk::RouteRegistry& registry,
                            std::shared_ptr<const AgentsRoutesContext> context);

/**
 * The Agents API parts the SDK knows that this server does not offer
 * (environments, automations, session artifacts, traces, subagents): each
 * answers 400 `unsupported_endpoint` in the OpenAI envelope, never a bare
 * 404. Register before addAgentsRoutes().
 */
sdk::Status addUnsupportedAgentsRoutes(sdk::RouteRegistry& registry);

}  // namespace abx::plugins::agents
