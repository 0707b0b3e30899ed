// The system group's policy parameters: the vocabulary the kernel checks
// policy documents against (it knows no key of its own).
#pragma once

#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::system {

inline constexpr char kEnvDeny[] = "env_deny";
inline constexpr char kAllowVars[] = "allow_vars";
inline constexpr char kDenyVars[] = "deny_vars";

inline std::vector<sdk::ParamSpec> systemParams() {
  return {
      {kEnvDeny, sdk::ParamType::string_list,
       "variable name globs POST /env refuses (403 env_protected)"},
      {kAllowVars, sdk::ParamType::string_list,
       "variable name globs GET /env shows and POST /env sets; others hidden or refused"},
      {kDenyVars, sdk::ParamType::string_list,
       "variable name globs GET /env hides and POST /env refuses"},
  };
}

}  // namespace abx::plugins::system
