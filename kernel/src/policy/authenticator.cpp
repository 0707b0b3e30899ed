#include "policy/authenticator.h"

#include <algorithm>
#include <cctype>

namespace abx::kernel {

namespace {
std::vector<TokenIdentity> legacyIdentity(const std::optional<std::string>& token) {
  if (!token || token->empty()) return {};
  return {TokenIdentity{"legacy", sha256Digest(*token), {"*"}}};
}
}  // namespace

Authenticator::Authenticator(std::optional<std::string> token)
    : Authenticator(legacyIdentity(token)) {}

Authenticator::Authenticator(std::vector<TokenIdentity> identities)
    : identities_(std::move(identities)) {
  open_identity_.id = "anonymous";
  open_identity_.scopes = {"*"};
  for (const auto& identity : identities_) {
    sdk::Identity caller;
    caller.id = identity.id;
    caller.scopes = identity.scopes;
    callers_.push_back(std::move(caller));
  }
}

namespace {

ApiError unauthorized() {
  ApiError e;
  e.status = 401;
  e.message = "unauthorized";
  e.type = "AuthError";
  return e;
}

std::optional<std::string_view> bearer(std::string_view header) {
  constexpr std::string_view kScheme = "bearer";
  if (header.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return std::nullopt;
  if (header[kScheme.size()] != ' ') return std::nullopt;
  auto value = header.substr(kScheme.size() + 1);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return value;
}

}  // namespace

std::variant<sdk::Identity, ApiError> Authenticator::authenticate(
    const std::vector<std::string_view>& access_tokens,
    std::optional<std::string_view> authorization) const {
  if (identities_.empty()) return open_identity_;
  std::optional<std::string_view> presented;
  for (auto value : access_tokens) {
    if (presented && *presented != value) {
      ApiError e;
      e.status = 400;
      e.message = "ambiguous credentials: two different X-Access-Token values";
      e.type = "AuthError";
      e.code = "ambiguous_credentials";
      return e;
    }
    presented = value;
  }
  if (!presented && authorization) presented = bearer(*authorization);
  if (!presented) return unauthorized();
  // Digests have one length, so comparing against every identity without
  // stopping early takes the same time whichever one (if any) matches.
  auto digest = sha256Digest(*presented);
  std::string_view d(reinterpret_cast<const char*>(digest.data()), digest.size());
  std::size_t found = identities_.size();
  for (std::size_t i = 0; i < identities_.size(); ++i) {
    std::string_view candidate(reinterpret_cast<const char*>(identities_[i].digest.data()),
                               identities_[i].digest.size());
    if (constantTimeEquals(d, candidate) && found == identities_.size()) found = i;
  }
  if (found == identities_.size()) return unauthorized();
  return callers_[found];
}

std::variant<sdk::Identity, ApiError> Authenticator::authenticate(
    const std::vector<std::pair<std::string, std::string>>& headers) const {
  std::vector<std::string_view> tokens;
  std::optional<std::string_view> authorization;
  for (const auto& [name, value] : headers) {
    if (name == "x-access-token") tokens.emplace_back(value);
    if (name == "authorization" && !authorization) authorization = value;
  }
  return authenticate(tokens, authorization);
}

}  // namespace abx::kernel
