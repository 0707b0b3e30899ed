// What every git run of the server is given besides its arguments: the child
// environment without any GIT_* variable (POST /env cannot point git at
// another repository or add configuration), system and global configuration
// switched off, and command-line configuration — git's highest priority —
// that switches off what git 2.39 would run as a program (fsmonitor, hooks,
// pagers, transports, proxies, credential helpers, submodule recursion).
// The repository's own configuration is dealt with by git_view.h.
#pragma once

#include <string>
#include <vector>

namespace abx::plugins::dev_tools {

struct GitConfigEntry {
  std::string key;
  std::string value;
  bool operator==(const GitConfigEntry&) const = default;
};

/** The command-line configuration of every run, in order. */
const std::vector<GitConfigEntry>& neutralGitConfig();

/** True for a variable git reads (every GIT_* name): never passed from the child environment. */
bool isGitVariable(std::string_view entry);

/**
 * The environment of one git run: @p child_env ("NAME=value") without the
 * variables isGitVariable() names, a default PATH when it has none, then
 * GIT_CONFIG_NOSYSTEM=1, GIT_CONFIG_GLOBAL=/dev/null, GIT_ATTR_NOSYSTEM=1,
 * GIT_TERMINAL_PROMPT=0, GIT_OPTIONAL_LOCKS=0, GIT_PROTOCOL_FROM_USER=0,
 * GIT_NO_LAZY_FETCH=1, neutralGitConfig() followed by @p config as
 * GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n (no quoting
 * involved), and @p extra ("NAME=value": GIT_DIR, GIT_CEILING_DIRECTORIES, ...).
 */
std::vector<std::string> gitEnvironment(std::vector<std::string> child_env,
                                        const std::vector<GitConfigEntry>& config,
                                        const std::vector<std::string>& extra);

}  // namespace abx::plugins::dev_tools
