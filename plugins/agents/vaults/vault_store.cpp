#include "vault_store.h"

#include <algorithm>

#include "runtime/id_factory.h"

namespace abx::plugins::agents {

Vault VaultStore::createVault(std::string owner, std::string name,
                              std::map<std::string, std::string> metadata, std::int64_t now) {
  Vault v{randomId("vlt"), std::move(owner), std::move(name), std::move(metadata), now};
  {
    std::lock_guard lock(mutex_);
    vaults_[v.id] = v;
  }
  changed();
  return v;
}

std::optional<Vault> VaultStore::vault(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = vaults_.find(id);
  if (it == vaults_.end()) return std::nullopt;
  return it->second;
}

bool VaultStore::updateVault(const std::string& id, std::optional<std::string> name,
                             std::optional<std::map<std::string, std::string>> metadata) {
  {
    std::lock_guard lock(mutex_);
    auto it = vaults_.find(id);
    if (it == vaults_.end()) return false;
    if (name) it->second.name = std::move(*name);
    if (metadata) it->second.metadata = std::move(*metadata);
  }
  changed();
  return true;
}

std::vector<Vault> VaultStore::vaults() const {
  std::vector<Vault> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, v] : vaults_) out.push_back(v);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Vault& a, const Vault& b) { return a.created_at < b.created_at; });
  return out;
}

bool VaultStore::deleteVault(const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    if (!vaults_.erase(id)) return false;
    for (auto it = credentials_.begin(); it != credentials_.end();)
      it = it->second.vault_id == id ? credentials_.erase(it) : std::next(it);
  }
  changed();
  return true;
}

std::optional<Credential> VaultStore::addCredential(Credential credential, std::int64_t now) {
  {
    std::lock_guard lock(mutex_);
    if (!vaults_.count(credential.vault_id)) return std::nullopt;
    credential.id = randomId("cred");
    credential.created_at = credential.updated_at = now;
    credentials_[credential.id] = credential;
  }
  changed();
  return credential;
}

std::optional<Credential> VaultStore::credential(const std::string& vault_id,
                                                 const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = credentials_.find(id);
  if (it == credentials_.end() || it->second.vault_id != vault_id) return std::nullopt;
  return it->second;
}

bool VaultStore::putCredential(const Credential& credential, std::int64_t now) {
  {
    std::lock_guard lock(mutex_);
    auto it = credentials_.find(credential.id);
    if (it == credentials_.end() || it->second.vault_id != credential.vault_id) return false;
    it->second = credential;
    it->second.updated_at = now;
  }
  changed();
  return true;
}

std::vector<Credential> VaultStore::credentials(const std::string& vault_id) const {
  std::vector<Credential> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, c] : credentials_)
      if (c.vault_id == vault_id) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const Credential& a, const Credential& b) {
    return a.created_at < b.created_at;
  });
  return out;
}

bool VaultStore::deleteCredential(const std::string& vault_id, const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    auto it = credentials_.find(id);
    if (it == credentials_.end() || it->second.vault_id != vault_id) return false;
    credentials_.erase(it);
  }
  changed();
  return true;
}

void VaultStore::restore(std::vector<Vault> vaults, std::vector<Credential> credentials) {
  std::lock_guard lock(mutex_);
  for (auto& v : vaults) vaults_[v.id] = std::move(v);
  for (auto& c : credentials)
    if (vaults_.count(c.vault_id)) credentials_[c.id] = std::move(c);
}

std::vector<Credential> VaultStore::allCredentials() const {
  std::vector<Credential> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, c] : credentials_) out.push_back(c);
  return out;
}

std::optional<std::string> VaultStore::secretsNotKept(
    const std::vector<std::string>& vault_ids) const {
  std::lock_guard lock(mutex_);
  for (const auto& vault_id : vault_ids)
    for (const auto& [id, c] : credentials_)
      if (c.vault_id == vault_id && c.secret.empty())
        return "The secret of credential '" + c.name + "' (" + c.id + ") of vault '" + vault_id +
               "' was not kept across a server restart (the server has no state key; set "
               "ABX_AGENTS_STATE_KEY or the agents setting state_key_file to keep secrets). Send "
               "it again with POST /v1/vaults/" +
               vault_id + "/credentials/" + c.id + ".";
  return std::nullopt;
}

sdk::agents::EnvList VaultStore::secretEnv(const std::vector<std::string>& vault_ids) const {
  sdk::agents::EnvList env;
  std::lock_guard lock(mutex_);
  for (const auto& vault_id : vault_ids)
    for (const auto& [id, c] : credentials_)
      if (c.vault_id == vault_id && c.type == "environment_variable" && !c.secret_name.empty())
        env.emplace_back(c.secret_name, c.secret);
  return env;
}

McpBearerTokens VaultStore::mcpBearerTokens(const std::vector<std::string>& vault_ids) const {
  McpBearerTokens tokens;
  std::lock_guard lock(mutex_);
  for (const auto& vault_id : vault_ids)
    for (const auto& [id, c] : credentials_)
      if (c.vault_id == vault_id && (c.type == "static_bearer" || c.type == "mcp_oauth") &&
          !c.mcp_server_url.empty() && !c.secret.empty())
        tokens.emplace_back(c.mcp_server_url, c.secret);
  return tokens;
}

}  // namespace abx::plugins::agents
