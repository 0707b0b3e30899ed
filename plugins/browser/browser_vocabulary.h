// The browser group's policy parameters: the vocabulary the kernel checks
// policy documents against (it knows no key of its own).
#pragma once

#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::browser {

inline constexpr char kUrlAllow[] = "url_allow";
inline constexpr char kUrlDeny[] = "url_deny";
inline constexpr char kBlockPrivateNetworks[] = "block_private_networks";

inline std::vector<sdk::ParamSpec> browserParams() {
  return {
      {kUrlAllow, sdk::ParamType::string_list,
       "URL or host globs Chromium may load; anything else is refused (403 url_not_allowed)"},
      {kUrlDeny, sdk::ParamType::string_list, "URL or host globs Chromium may never load"},
      {kBlockPrivateNetworks, sdk::ParamType::boolean,
       "true refuses loopback, private and link-local addresses, whatever the name"},
  };
}

}  // namespace abx::plugins::browser
