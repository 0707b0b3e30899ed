// The dev_tools group's policy parameters: the vocabulary the kernel checks
// policy documents against (it knows no key of its own).
#pragma once

#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::dev_tools {

inline constexpr char kLanguagesParam[] = "languages";

inline std::vector<sdk::ParamSpec> devToolsParams() {
  return {
      {kLanguagesParam, sdk::ParamType::string_list,
       "languages POST /code/run may run (python, node, bash)"},
  };
}

}  // namespace abx::plugins::dev_tools
