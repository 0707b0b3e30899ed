// Secret classification (agents spec §4) and SecretBag: the secret values of
// one agent definition, held in process memory only. The bag feeds the
// Redactor; nothing in it is ever serialised (see public_view.h for the
// "***" view that GET routes return).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::agents {

/**
 * Header names whose values are credentials whatever their spelling:
 * Authorization, Proxy-Authorization, X-Api-Key, Api-Key (case-insensitive).
 * HTTP bodies arrive with placeholders already resolved, so without this rule
 * a literal "Authorization: Bearer …" header would not be secret.
 */
bool isCredentialHeaderName(std::string_view name);

/**
 * The credential in a URL's user info: the password of user:password@, or the
 * whole user info of an http(s) URL (https://TOKEN@host/…); "" otherwise (the
 * "git" of ssh://git@host is a user name, not a secret). SecretBag::of adds it
 * for the git url, provider.base_url and MCP urls; the public view masks it.
 */
std::string_view urlCredential(std::string_view url);

/** The distinct, non-empty secret values of one definition (plus any added later). */
class SecretBag {
 public:
  SecretBag() = default;

  /**
   * provider.api_key, workspace.git.token, every secrets.* value, and every MCP
   * header with McpHeader::secret set (the parser sets it for ${…} values,
   * {secret: true} and credential header names); for a secret header value
   * "Bearer|Basic|Token <credential>" the bare <credential> as well; and the
   * user info of the git url, provider.base_url and MCP urls.
   */
  static SecretBag of(const sdk::agents::AgentSpec& spec);

  /** Adds @p value unless it is empty or already present. */
  void add(std::string value);
  void addAll(const SecretBag& other);

  const std::vector<std::string>& values() const { return values_; }
  bool contains(std::string_view value) const;
  bool empty() const { return values_.empty(); }
  std::size_t size() const { return values_.size(); }

 private:
  std::vector<std::string> values_;
};

}  // namespace abx::plugins::agents
