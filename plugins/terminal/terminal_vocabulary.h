// The terminal group's policy parameters: the vocabulary the kernel checks
// policy documents against (it knows no key of its own).
#pragma once

#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::terminal {

inline constexpr char kShells[] = "shells";
inline constexpr char kEnvDeny[] = "env_deny";

inline std::vector<sdk::ParamSpec> terminalParams() {
  return {
      {kShells, sdk::ParamType::string_list, "shells POST /pty may start"},
      {kEnvDeny, sdk::ParamType::string_list,
       "variable name globs removed from a terminal's environment"},
  };
}

}  // namespace abx::plugins::terminal
