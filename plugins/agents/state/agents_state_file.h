// AgentsStateFile: <state_dir>/agents_state.json, what the agents plugin
// keeps across a restart beyond sessions.json: the HTTP-created agent
// definitions (their stored body and its translation), the vaults and their
// credentials. Secret values are never in it in clear: with a state key they
// are sealed (secret_sealer.h), bound to their record; without one they are
// left out, and come back as not kept (secret_leaves.h; a credential with an
// empty secret). Written atomically, mode 0600; a file that does not read is
// moved aside and the server starts empty.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "definition/config_tree.h"
#include "state/secret_sealer.h"
#include "vaults/vault_store.h"

namespace abx::plugins::agents {

/** One HTTP-created definition as the file keeps it. */
struct AgentRecord {
  std::string id;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  ConfigValue body;       /**< the request body as merged so far */
  ConfigValue definition; /**< its translation into the definition schema */
  std::map<std::string, std::string> metadata;
  bool named = true;
  std::string model;
  /** save(): the definition's secret values, to seal or leave out. */
  std::vector<std::string> secrets;
};

struct AgentsState {
  std::vector<AgentRecord> agents;
  std::vector<Vault> vaults;
  std::vector<Credential> credentials;
};

class AgentsStateFile {
 public:
  /** @p sealer null: no state key, secrets are left out. */
  AgentsStateFile(std::string state_dir, std::shared_ptr<const SecretSealer> sealer);

  sdk::Status save(const AgentsState& state) const;

  struct Loaded {
    AgentsState state;
    /** What an operator should hear (never a secret): a file moved aside,
     *  secrets that did not open. */
    std::vector<std::string> warnings;
  };
  /** Never fails: a missing file is an empty state, a bad one is moved aside. */
  Loaded load(std::int64_t now) const;

  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
  std::shared_ptr<const SecretSealer> sealer_;
};

}  // namespace abx::plugins::agents
