#include "definition_lock.h"

namespace abx::plugins::agents {
namespace {

WireError locked(std::string message, std::string param) {
  return WireError{
      .status = 403,
      .message = std::move(message) +
                 " This server runs only its configured agent definitions, as configured "
                 "(ABX_AGENTS_LOCK_DEFINITIONS=1).",
      .code = "definitions_locked",
      .param = std::move(param)};
}

}  // namespace

std::optional<WireError> definitionLockRefusal(const AgentCatalog& catalog,
                                               const LockedRequest& request) {
  if (!catalog.locked()) return std::nullopt;
  if (!catalog.definition(request.model))
    return locked("'" + request.model + "' is not a configured agent.", request.model_param);
  if (request.adds_mcp_servers)
    return locked("Request-level MCP servers (tools of type 'mcp') are not accepted.", "tools");
  if (request.adds_vaults)
    return locked("Sessions cannot add vault credentials (vault_ids).", "vault_ids");
  return std::nullopt;
}

WireError unresolvedAgent(const AgentCatalog& catalog, const std::string& name,
                          const std::string& why, const std::string& param) {
  if (catalog.definition(name))
    return {.status = 400, .message = why, .code = "invalid_request", .param = param};
  return {.status = 404, .message = why, .code = "model_not_found", .param = param};
}

}  // namespace abx::plugins::agents
