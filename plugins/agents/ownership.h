// Who may see and act on the objects the agents wires hand out: a session
// (and its turns, items and events), a response (a turn of a session) and a
// vault (and its credentials) belong to the identity that created them. Only
// that identity, or a caller holding the `admin` scope ("*" covers it), finds
// them; for anyone else they do not exist (the same 404, lists without them).
// Agent definitions are operator configuration and stay shared.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/http.h"
#include "runtime/agent_runtime.h"
#include "vaults/vault_store.h"

namespace abx::plugins::agents {

inline constexpr std::string_view kAdminScope = "admin";

/** True when @p caller created what @p owner owns, or holds `admin`. An
 *  empty owner (a record from before owners were kept) is admin's only. */
bool mayActOn(const sdk::Identity& caller, std::string_view owner);

/** The session @p id when @p caller may act on it. */
std::optional<SessionInfo> visibleSession(const AgentRuntime& runtime, const std::string& id,
                                          const sdk::Identity& caller);
/** The turn @p id when @p caller may act on its session. */
std::optional<Turn> visibleTurn(const AgentRuntime& runtime, const std::string& id,
                                const sdk::Identity& caller);
/** The vault @p id when @p caller may act on it. */
std::optional<Vault> visibleVault(const VaultStore& vaults, const std::string& id,
                                  const sdk::Identity& caller);

/** An Idempotency-Key as remembered: one identity's key never matches another's. */
std::string callerKey(const sdk::Identity& caller, std::string_view key);

}  // namespace abx::plugins::agents
