// Authenticator: the presented token (X-Access-Token or Authorization:
// Bearer) is hashed with SHA-256 and compared in constant time with every
// identity's digest — the legacy ABX_SERVER_TOKEN (identity "legacy", scope
// "*") and the policy's auth.tokens. With no identity the server is open and
// every caller is "anonymous".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "abx/sdk/http.h"
#include "policy/compiled_policy.h"
#include "support/api_error.h"
#include "support/token_digest.h"

namespace abx::kernel {

class Authenticator {
 public:
  /** The legacy form: one token, identity "legacy" with scope "*". */
  explicit Authenticator(std::optional<std::string> token);
  explicit Authenticator(std::vector<TokenIdentity> identities);

  bool enabled() const { return !identities_.empty(); }

  /**
   * @param access_tokens every X-Access-Token header value, in order
   * @param authorization the Authorization header, if any
   * X-Access-Token decides when present (the OpenAI SDK always sends a
   * Bearer with its own apiKey, so a caller may add the token beside it);
   * Authorization: Bearer is used otherwise.
   */
  std::variant<sdk::Identity, ApiError> authenticate(
      const std::vector<std::string_view>& access_tokens,
      std::optional<std::string_view> authorization) const;

  /** The same from a request's headers (names lower-case). */
  std::variant<sdk::Identity, ApiError> authenticate(
      const std::vector<std::pair<std::string, std::string>>& headers) const;

  /** The caller when no authentication applies. */
  const sdk::Identity& openIdentity() const { return open_identity_; }

 private:
  std::vector<TokenIdentity> identities_;
  std::vector<sdk::Identity> callers_;  // parallel to identities_
  sdk::Identity open_identity_;
};

}  // namespace abx::kernel
