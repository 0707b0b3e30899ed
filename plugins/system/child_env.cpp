#include "child_env.h"

#include <algorithm>

namespace abx::plugins::system {

std::vector<std::string> childEnv(const sdk::ChildEnvironment& environment) {
  auto env = environment.snapshot();
  bool has_path = std::any_of(env.begin(), env.end(),
                              [](const std::string& e) { return e.starts_with("PATH="); });
  if (!has_path) env.emplace_back(kDefaultPath);
  return env;
}

}  // namespace abx::plugins::system
