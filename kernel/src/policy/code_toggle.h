// CodeToggle: a plugin's enable_group / disable_group call — the code layer
// of the policy, between the default layer and the preset.
#pragma once

#include <string>

namespace abx::kernel {

struct CodeToggle {
  std::string group;
  bool enable = true;
  std::string plugin; /**< who asked, for error messages */
};

}  // namespace abx::kernel
