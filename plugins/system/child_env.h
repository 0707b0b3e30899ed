// The environment and working directory of the tools this plugin runs
// (python3, pip, npm, ss): the host's child environment, so they see what
// POST /env set (nothing that changes how they load, env_protection.h) and
// never the server's secrets, in a neutral directory.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/child_environment.h"

namespace abx::plugins::system {

/**
 * The working directory of every tool this plugin runs: never the server's
 * own, where a caller may have planted a `pip/` package or an `.npmrc` that
 * `python3 -m pip` or npm would pick up.
 */
inline constexpr const char* kNeutralDir = "/";

/** Used when the child environment has no PATH at all. */
inline constexpr const char* kDefaultPath = "PATH=/usr/local/bin:/usr/bin:/bin";

/** @p environment's snapshot, plus kDefaultPath when it has no PATH. */
std::vector<std::string> childEnv(const sdk::ChildEnvironment& environment);

}  // namespace abx::plugins::system
