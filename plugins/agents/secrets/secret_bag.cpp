#include "secrets/secret_bag.h"

#include <algorithm>
#include <array>

#include "abx/sdk/http_head.h"

namespace abx::plugins::agents {
namespace {

using sdk::equalsIgnoreCase;

// "Bearer abc…" → "abc…": the bare credential also shows up on its own (in a
// CLI's error text, a curl line), so it is a secret in its own right.
std::string_view credentialAfterScheme(std::string_view value) {
  const auto space = value.find(' ');
  if (space == std::string_view::npos) return {};
  const auto scheme = value.substr(0, space);
  if (!equalsIgnoreCase(scheme, "bearer") && !equalsIgnoreCase(scheme, "basic") &&
      !equalsIgnoreCase(scheme, "token"))
    return {};
  auto rest = value.substr(space + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

}  // namespace

bool isCredentialHeaderName(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kNames = {"authorization", "proxy-authorization",
                                                             "x-api-key", "api-key"};
  return std::any_of(kNames.begin(), kNames.end(),
                     [&](std::string_view n) { return equalsIgnoreCase(n, name); });
}

std::string_view urlCredential(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  auto authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  const auto at = authority.rfind('@');
  if (at == std::string_view::npos) return {};
  const auto user_info = authority.substr(0, at);
  if (const auto colon = user_info.find(':'); colon != std::string_view::npos)
    return user_info.substr(colon + 1);
  const auto scheme = url.substr(0, scheme_end);
  return scheme == "http" || scheme == "https" ? user_info : std::string_view();
}

SecretBag SecretBag::of(const sdk::agents::AgentSpec& spec) {
  SecretBag bag;
  bag.add(spec.provider.api_key);
  bag.add(std::string(urlCredential(spec.provider.base_url)));
  if (spec.workspace.git) {
    bag.add(spec.workspace.git->token);
    bag.add(std::string(urlCredential(spec.workspace.git->url)));
  }
  for (const auto& [name, value] : spec.secrets) bag.add(value);
  for (const auto& server : spec.mcp_servers) {
    bag.add(std::string(urlCredential(server.url)));
    for (const auto& header : server.headers)
      if (header.secret) {
        bag.add(header.value);
        bag.add(std::string(credentialAfterScheme(header.value)));
      }
  }
  return bag;
}

void SecretBag::add(std::string value) {
  if (value.empty() || contains(value)) return;
  values_.push_back(std::move(value));
}

void SecretBag::addAll(const SecretBag& other) {
  for (const auto& v : other.values_) add(v);
}

bool SecretBag::contains(std::string_view value) const {
  return std::find(values_.begin(), values_.end(), value) != values_.end();
}

}  // namespace abx::plugins::agents
