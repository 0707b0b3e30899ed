#include "git_environment.h"

#include <algorithm>

#include "tool_context.h"

namespace abx::plugins::dev_tools {

// Each entry names a way git 2.39 runs a program (or reads a file it should
// not) during rev-parse, config, status or diff. Command-line configuration
// wins over every file, so these hold whatever a config file says.
const std::vector<GitConfigEntry>& neutralGitConfig() {
  static const std::vector<GitConfigEntry> kConfig = {
      {"core.fsmonitor", "false"},      // a program run on every index refresh
      {"core.hooksPath", "/dev/null"},  // post-index-change runs when diff rewrites the index
      {"core.pager", "cat"},            // --no-pager too
      {"pager.status", "false"},
      {"pager.diff", "false"},
      {"core.sshCommand", "false"},  // no transport is ever used; if one were:
      {"core.gitProxy", "none"},
      {"protocol.allow", "never"},
      {"credential.helper", ""},  // an empty value clears the helper list
      {"core.askPass", ""},
      {"core.attributesFile", "/dev/null"},  // the global attributes file
      {"core.excludesFile", "/dev/null"},    // the global ignore file
      {"submodule.recurse", "false"},        // submodules would run git with their own config
      {"diff.submodule", "short"},
      {"status.submoduleSummary", "false"},
  };
  return kConfig;
}

bool isGitVariable(std::string_view entry) { return entry.starts_with("GIT_"); }

std::vector<std::string> gitEnvironment(std::vector<std::string> child_env,
                                        const std::vector<GitConfigEntry>& config,
                                        const std::vector<std::string>& extra) {
  std::vector<std::string> env = std::move(child_env);
  std::erase_if(env, [](const std::string& e) { return isGitVariable(e); });
  if (std::none_of(env.begin(), env.end(),
                   [](const std::string& e) { return e.starts_with("PATH="); }))
    env.emplace_back(kDefaultPathEntry);
  for (const char* fixed : {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                            "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
                            "GIT_PROTOCOL_FROM_USER=0", "GIT_NO_LAZY_FETCH=1"})
    env.emplace_back(fixed);
  std::size_t n = 0;
  auto add = [&](const GitConfigEntry& entry) {
    env.push_back("GIT_CONFIG_KEY_" + std::to_string(n) + "=" + entry.key);
    env.push_back("GIT_CONFIG_VALUE_" + std::to_string(n) + "=" + entry.value);
    ++n;
  };
  for (const auto& entry : neutralGitConfig()) add(entry);
  for (const auto& entry : config) add(entry);
  env.push_back("GIT_CONFIG_COUNT=" + std::to_string(n));
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

}  // namespace abx::plugins::dev_tools
