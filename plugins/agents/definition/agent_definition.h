// Agent definitions (agents spec §4): one schema read from YAML files, JSON
// files and HTTP JSON bodies into abx::sdk::agents::AgentSpec. All three go
// through configFromYaml/configFromJson and then parseAgentDefinition, so the
// rules, defaults and error paths are the same for every spelling.
//
// Errors carry the dotted path of the offending field ("provider.wire_api",
// "mcp_servers.docs.headers.Authorization", "command.argv[0]") and a message.
// Every problem is reported, not only the first.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "definition/config_tree.h"
#include "definition/credential_ref.h"
#include "definition/env_expansion.h"

namespace abx::plugins::agents {

struct DefinitionError {
  std::string path; /**< dotted field path; "" for the document itself */
  std::string message;
  /** "path: message", or the message alone when the path is empty. */
  std::string text() const;
};

/** Registry membership of a runtime name (adapter name or alias). */
using RuntimePredicate = std::function<bool(std::string_view runtime)>;

struct DefinitionOptions {
  /** Expand ${VAR} in string values from @ref env (server-loaded files only). */
  bool expand_placeholders = false;
  EnvLookup env;
  /** Empty: any syntactically valid runtime name is accepted. */
  RuntimePredicate known_runtime;
};

struct DefinitionResult {
  sdk::agents::AgentSpec spec; /**< meaningful only when ok() */
  /** Secret slots given as {vault, credential}; empty in @ref spec until a turn starts. */
  std::vector<CredentialRef> credential_refs;
  /** workspace.git.depth (default 1; 0: the whole history). Kept beside the
   *  spec: the SDK's GitSpec has no room for it. */
  int git_depth = 1;
  std::vector<DefinitionError> errors;
  bool ok() const { return errors.empty(); }
  /** All errors as "path: message" joined by "; " (for a 400 message or a log line). */
  std::string errorText() const;
};

/**
 * Reads one definition from @p tree. @p path_prefix is prepended to every
 * error path (e.g. "agents[2]" for an entry of a config file).
 */
DefinitionResult parseAgentDefinition(const ConfigValue& tree, const DefinitionOptions& options,
                                      std::string_view path_prefix = {});

/**
 * An HTTP JSON body (POST /v1/agents…), as configFromJson() gave it.
 * Never expanded: `${` in a body is literal text.
 */
DefinitionResult parseAgentDefinitionBody(const ConfigValue& body,
                                          const RuntimePredicate& known_runtime = {});

/** The same from JSON text; a syntax error is the one error (path ""). */
DefinitionResult parseAgentDefinitionBody(std::string_view json_body,
                                          const RuntimePredicate& known_runtime = {});

/**
 * Warnings to log when @p spec is registered (agents spec §9.13): full_access
 * together with any secret (a credential reference counts as one). Empty when there is nothing to
 * say.
 */
std::vector<std::string> registrationWarnings(const sdk::agents::AgentSpec& spec,
                                              bool has_credential_refs = false);

}  // namespace abx::plugins::agents
