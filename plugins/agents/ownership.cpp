#include "ownership.h"

namespace abx::plugins::agents {

bool mayActOn(const sdk::Identity& caller, std::string_view owner) {
  return (!owner.empty() && caller.id == owner) || caller.hasScope(kAdminScope);
}

std::optional<SessionInfo> visibleSession(const AgentRuntime& runtime, const std::string& id,
                                          const sdk::Identity& caller) {
  auto session = runtime.session(id);
  if (!session || !mayActOn(caller, session->owner)) return std::nullopt;
  return session;
}

std::optional<Turn> visibleTurn(const AgentRuntime& runtime, const std::string& id,
                                const sdk::Identity& caller) {
  auto turn = runtime.turn(id);
  if (!turn) return std::nullopt;
  // A turn is its session's: one whose session is gone (a running turn of a
  // deleted session, until its worker ends it) is admin's only.
  auto session = runtime.session(turn->session_id);
  if (!mayActOn(caller, session ? std::string_view(session->owner) : std::string_view()))
    return std::nullopt;
  return turn;
}

std::optional<Vault> visibleVault(const VaultStore& vaults, const std::string& id,
                                  const sdk::Identity& caller) {
  auto vault = vaults.vault(id);
  if (!vault || !mayActOn(caller, vault->owner)) return std::nullopt;
  return vault;
}

std::string callerKey(const sdk::Identity& caller, std::string_view key) {
  // Identity ids hold no NUL, so the pair cannot be spelled two ways.
  std::string out = caller.id;
  out += '\0';
  out += key;
  return out;
}

}  // namespace abx::plugins::agents
