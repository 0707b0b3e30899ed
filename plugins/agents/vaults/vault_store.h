// VaultStore: vaults and their credentials (openai-wire.md §9.11), never
// in a GET body (the views show the non-secret part); agents_state.json
// keeps them across restarts, their secrets sealed or left out
// (state/agents_state_file.h). A session created with vault_ids gets every
// environment_variable credential of those vaults as a secret env var of
// its CLI, and every static_bearer / mcp_oauth token as the Authorization of
// the MCP server its mcp_server_url names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "runtime/mcp_bearer.h"

namespace abx::plugins::agents {

struct Vault {
  std::string id;
  std::string owner; /**< the identity that created it; its credentials are its */
  std::string name;
  std::map<std::string, std::string> metadata;
  std::int64_t created_at = 0;
};

struct Credential {
  std::string id;
  std::string vault_id;
  std::string name;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::map<std::string, std::string> metadata;
  std::string type;        /**< environment_variable | static_bearer | mcp_oauth */
  std::string secret_name; /**< environment_variable */
  /** secret_value, token or access_token: write-only. Empty only when a
   *  restart without a state key lost it (creating requires one). */
  std::string secret;
  std::string mcp_server_url; /**< static_bearer, mcp_oauth */
  /** JSON text, echoed as it is: the client's `networking` object, or this
   *  default (a constant, so spelled here rather than written per request). */
  std::string networking_json = R"({"type":"unrestricted"})";
};

/** THREAD: safe. */
class VaultStore {
 public:
  Vault createVault(std::string owner, std::string name,
                    std::map<std::string, std::string> metadata, std::int64_t now);
  std::optional<Vault> vault(const std::string& id) const;
  bool updateVault(const std::string& id, std::optional<std::string> name,
                   std::optional<std::map<std::string, std::string>> metadata);
  std::vector<Vault> vaults() const; /**< oldest first */
  bool deleteVault(const std::string& id);

  /** Fails (nullopt) for an unknown vault. */
  std::optional<Credential> addCredential(Credential credential, std::int64_t now);
  std::optional<Credential> credential(const std::string& vault_id, const std::string& id) const;
  bool putCredential(const Credential& credential, std::int64_t now);
  std::vector<Credential> credentials(const std::string& vault_id) const; /**< oldest first */
  bool deleteCredential(const std::string& vault_id, const std::string& id);

  /** Vaults and credentials read back from agents_state.json (no onChange call). */
  void restore(std::vector<Vault> vaults, std::vector<Credential> credentials);
  /** Every credential of every vault. */
  std::vector<Credential> allCredentials() const;
  /** Called after every change, outside the lock: agents_state.json follows.
   *  Set once, before the routes exist. */
  void onChange(std::function<void()> listener) { on_change_ = std::move(listener); }
  /** A turn's refusal when a credential of @p vault_ids lost its secret in a restart. */
  std::optional<std::string> secretsNotKept(const std::vector<std::string>& vault_ids) const;

  /** environment_variable credentials of @p vault_ids as env (secret values). */
  sdk::agents::EnvList secretEnv(const std::vector<std::string>& vault_ids) const;
  /** static_bearer tokens and mcp_oauth access tokens of @p vault_ids, by MCP server URL. */
  McpBearerTokens mcpBearerTokens(const std::vector<std::string>& vault_ids) const;

 private:
  void changed() const {
    if (on_change_) on_change_();
  }

  std::function<void()> on_change_;
  mutable std::mutex mutex_;
  std::map<std::string, Vault> vaults_;
  std::map<std::string, Credential> credentials_;  // by credential id
};

}  // namespace abx::plugins::agents
