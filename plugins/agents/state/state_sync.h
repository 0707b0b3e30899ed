// AgentsStateSync: keeps agents_state.json (agents_state_file.h) in step
// with the catalog's HTTP-created definitions and the vault store: read back
// once at start, written whole after every change. The state key comes from
// ABX_AGENTS_STATE_KEY (taken as a secret: wiped from the environment, never
// passed to a child, redacted from logs) or the state_key_file setting.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "abx/sdk/host_context.h"
#include "agent_catalog.h"
#include "state/agents_state_file.h"
#include "vaults/vault_store.h"

namespace abx::plugins::agents {

/** The variable that holds the state key. */
inline constexpr char kStateKeyVariable[] = "ABX_AGENTS_STATE_KEY";

/**
 * The sealer of the state key @p host has: ABX_AGENTS_STATE_KEY, else the
 * file the state_key_file setting names; null when neither is set. A key
 * that does not read, or a key file that cannot be read, is an error naming
 * its source (never the key).
 */
sdk::Result<std::shared_ptr<const SecretSealer>> stateSealer(sdk::HostContext& host);

class AgentsStateSync {
 public:
  AgentsStateSync(AgentsStateFile file, AgentCatalog& catalog, VaultStore& vaults, sdk::Logger& log)
      : file_(std::move(file)), catalog_(catalog), vaults_(vaults), log_(log) {}

  /**
   * Reads the file into the catalog (over the config file's definitions of
   * the same name; none when the catalog is locked) and the vault store;
   * every secret it restores goes to @p redactor. Logs what an operator
   * should know; never fails.
   */
  void restore(sdk::Redactor& redactor, std::int64_t now);
  /** Writes the whole state now; a failure is logged (the change stands in memory). */
  void save();

 private:
  AgentsStateFile file_;
  AgentCatalog& catalog_;
  VaultStore& vaults_;
  sdk::Logger& log_;
  /** Definitions of the file a locked catalog does not run; saved back as they were. */
  std::vector<AgentRecord> held_;
  std::mutex mutex_;  // one writer at a time, each with the state as it is then
};

}  // namespace abx::plugins::agents
