// Who may act on a background process: the identity that started it, or a
// caller holding the `admin` scope (which "*" covers). Anyone else is
// answered exactly as if the process did not exist.
#pragma once

#include <string_view>

#include "abx/sdk/http.h"

namespace abx::plugins::process {

inline constexpr std::string_view kAdminScope = "admin";

/** True when @p caller started the process owned by @p owner or holds `admin`. */
inline bool mayActOn(const sdk::Identity& caller, std::string_view owner) {
  return (!owner.empty() && caller.id == owner) || caller.hasScope(kAdminScope);
}

}  // namespace abx::plugins::process
