// The process group's policy parameters: the vocabulary the kernel checks
// policy documents against (it knows no key of its own).
#pragma once

#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::process {

inline constexpr char kAllowCommands[] = "allow_commands";
inline constexpr char kDenyCommands[] = "deny_commands";
inline constexpr char kShells[] = "shells";
inline constexpr char kEnvDeny[] = "env_deny";
inline constexpr char kAllowedSignals[] = "allowed_signals";

inline std::vector<sdk::ParamSpec> processParams() {
  return {
      {kAllowCommands, sdk::ParamType::string_list,
       "programs a command may run (names or absolute paths; judged through launchers and "
       "shells)"},
      {kDenyCommands, sdk::ParamType::string_list, "programs a command may never run"},
      {kShells, sdk::ParamType::string_list, "shells a command may use"},
      {kEnvDeny, sdk::ParamType::string_list,
       "variable name globs removed from a child's environment"},
      {kAllowedSignals, sdk::ParamType::integer_list,
       "signal numbers POST /process/{pid}/signal may send, instead of the built-in list",
       std::nullopt, 1, 64},
  };
}

}  // namespace abx::plugins::process
