// Authenticator: ABX_SERVER_TOKEN checked against X-Access-Token or
// Authorization: Bearer, in constant time. With no token the server is open
// and every caller is the identity "anonymous".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "abx/sdk/http.h"
#include "pipeline/api_error.h"

namespace abx::kernel {

class Authenticator {
 public:
  explicit Authenticator(std::optional<std::string> token);

  bool enabled() const { return token_.has_value(); }

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

  /** The caller when no authentication applies. */
  const sdk::Identity& openIdentity() const { return open_identity_; }

 private:
  std::optional<std::string> token_;
  sdk::Identity open_identity_;
  sdk::Identity token_identity_;
};

/** Equal contents, in time that depends only on the lengths. */
bool constantTimeEquals(std::string_view a, std::string_view b);

}  // namespace abx::kernel
