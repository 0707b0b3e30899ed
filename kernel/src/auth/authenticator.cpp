#include "auth/authenticator.h"

#include <cctype>

namespace abx::kernel {

bool constantTimeEquals(std::string_view a, std::string_view b) {
  // Walk the expected length every time; a length mismatch is folded into
  // the result instead of returning early.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < b.size(); ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ static_cast<unsigned char>(b[i]));
  }
  return diff == 0;
}

Authenticator::Authenticator(std::optional<std::string> token) : token_(std::move(token)) {
  if (token_ && token_->empty()) token_.reset();
  open_identity_.id = "anonymous";
  open_identity_.scopes = {"*"};
  token_identity_.id = "legacy";
  token_identity_.scopes = {"*"};
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
  if (!token_) return open_identity_;
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
  if (!presented || !constantTimeEquals(*presented, *token_)) return unauthorized();
  return token_identity_;
}

}  // namespace abx::kernel
