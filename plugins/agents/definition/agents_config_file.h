// The server-side agents file (ABX_AGENTS_CONFIG): YAML or JSON, expanded
// from the server's environment (env_expansion.h), holding either
//   one definition            name: reviewer\n runtime: codex\n …
//   or a list of them         agents:\n  - name: reviewer …\n  - name: fixer …
// A list entry's error paths start with "agents[i]". Names must be unique.
// The map form (agents: {reviewer: {…}}) is not accepted: the name lives in
// the definition in every spelling.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "definition/agent_definition.h"

namespace abx::plugins::agents {

enum class ConfigFormat { yaml, json };

struct AgentsConfigResult {
  std::vector<sdk::agents::AgentSpec> agents; /**< empty unless ok() */
  /** By agent name: the secret slots given as {vault, credential}. */
  std::map<std::string, std::vector<CredentialRef>> credential_refs;
  /** By agent name: workspace.git.depth where it is not the default (1). */
  std::map<std::string, int> git_depths;
  std::vector<DefinitionError> errors;
  bool ok() const { return errors.empty(); }
  /** "<source>: path: message; …" (one line for the start-up failure message). */
  std::string errorText() const;
  std::string source; /**< the file path, for errorText() */
};

/**
 * Parses the text of an agents file. @p source names it in errorText().
 * Every string value is ${VAR}-expanded through @p env.
 */
AgentsConfigResult parseAgentsConfig(std::string_view text, ConfigFormat format,
                                     std::string_view source, const EnvLookup& env,
                                     const RuntimePredicate& known_runtime = {});

/**
 * Reads @p path (a ".json" name is JSON, anything else YAML) and parses it as
 * parseAgentsConfig does. A read failure is one error with an empty path.
 */
AgentsConfigResult loadAgentsConfigFile(const std::string& path, const EnvLookup& env,
                                        const RuntimePredicate& known_runtime = {});

}  // namespace abx::plugins::agents
