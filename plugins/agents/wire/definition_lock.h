// ABX_AGENTS_LOCK_DEFINITIONS=1 on the wires (agents spec §9.10: locked, only
// configured definitions run): a request may name a configured definition and
// nothing else, and may not add MCP servers or vault credentials to it. The
// check runs before anything starts and answers 403 definitions_locked naming
// the field. And the refusal of an agent that does not resolve.
#pragma once

#include <optional>
#include <string>

#include "agent_catalog.h"
#include "openai_error.h"

namespace abx::plugins::agents {

/** What one request asks to run, as the lock sees it. */
struct LockedRequest {
  std::string model;       /**< a definition's name, or a runtime's */
  std::string model_param; /**< "model", "agent_id", "agent.model" */
  bool adds_mcp_servers = false;
  bool adds_vaults = false;
};

/** nullopt when the catalog is not locked or @p request stays within its definitions. */
std::optional<WireError> definitionLockRefusal(const AgentCatalog& catalog,
                                               const LockedRequest& request);

/**
 * Why @p name did not resolve (@p why from AgentCatalog::resolve) as a
 * refusal naming @p param: 404 model_not_found when no such agent exists;
 * 400 invalid_request when the definition exists but cannot run now (a
 * credential it references is gone).
 */
WireError unresolvedAgent(const AgentCatalog& catalog, const std::string& name,
                          const std::string& why, const std::string& param);

}  // namespace abx::plugins::agents
