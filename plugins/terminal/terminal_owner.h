// Who may act on a PTY session: the identity that created it, or a caller
// holding the `admin` scope (which "*" covers). Anyone else is answered
// exactly as if the session did not exist, over REST and over the WebSocket.
#pragma once

#include <string_view>

#include "abx/sdk/http.h"

namespace abx::plugins::terminal {

inline constexpr std::string_view kAdminScope = "admin";

/** True when @p caller_id created the session owned by @p owner, or @p admin. */
inline bool mayActOn(std::string_view caller_id, bool admin, std::string_view owner) {
  return admin || (!owner.empty() && caller_id == owner);
}

inline bool mayActOn(const sdk::Identity& caller, std::string_view owner) {
  return mayActOn(caller.id, caller.hasScope(kAdminScope), owner);
}

}  // namespace abx::plugins::terminal
