// The environment of the tools this plugin runs (python3, pip, npm, ss): the
// host's child environment, so they see what POST /env set and never the
// server's secrets.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/child_environment.h"

namespace abx::plugins::system {

/** Used when the child environment has no PATH at all. */
inline constexpr const char* kDefaultPath = "PATH=/usr/local/bin:/usr/bin:/bin";

/** @p environment's snapshot, plus kDefaultPath when it has no PATH. */
std::vector<std::string> childEnv(const sdk::ChildEnvironment& environment);

}  // namespace abx::plugins::system
