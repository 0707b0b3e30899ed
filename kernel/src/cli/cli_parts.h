// What the command-line files share: the parsed options of one command, the
// configuration they give, and the commands that live outside cli.cpp.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "server/server_config.h"

namespace abx::kernel {

/** One command's options (name -> value) and flags, as given. */
struct Parsed {
  std::map<std::string, std::string> options;
  std::set<std::string> flags;
};

/** The environment's settings, then --plugins/--plugin-dir; nullopt (exit 2)
 *  after printing why a variable's value is refused. */
std::optional<ServerConfig> baseConfig(const Parsed& p);
/** --policy, --preset, --strict. */
void applyPolicyOptions(const Parsed& p, ServerConfig& c);

/** `check-config` (check_commands.cpp). @return the exit code. */
int checkConfig(const Parsed& p);
/** `openapi` (check_commands.cpp). @return the exit code. */
int printOpenApi(const Parsed& p);

}  // namespace abx::kernel
