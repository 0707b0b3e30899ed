// The OpenAI SDK's agent objects (AgentCreateParams, AgentUpdateParams and
// the inline `agent` of a session) in the definition schema's terms: which
// runtime a `model` means, `tools` of type mcp as mcp_servers, `metadata`
// under OpenAI's limits, the settings this server cannot change (text,
// service_tier, reasoning, compaction, multi_agent, experimental) accepted
// only at their default meaning, and an update merged over the stored body.
// Every refusal names its field, as a 400's `param`.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "definition/agent_definition.h"
#include "definition/config_tree.h"

namespace abx::plugins::agents {

/** The runtime a server runs a bare model name on (GET /v1/agents/runtimes marks it `default`). */
inline constexpr std::string_view kDefaultRuntime = "codex";

/** The runtime called @p name (a runtime's name or alias), by its own name; nullopt for none. */
using RuntimeLookup = std::function<std::optional<std::string>(std::string_view name)>;

struct ModelChoice {
  std::string runtime;
  std::string model; /**< what the runtime is told; "" = its default model */
};

/**
 * The model rule: an explicit @p runtime wins (and @p model goes to it as
 * given, unless it names a runtime: then that runtime's default model); else
 * a @p model naming a runtime or alias is that runtime with its default
 * model; else `<runtime>/<model>` splits when its first part names a runtime;
 * else @p fallback with @p model passed to it.
 */
ModelChoice chooseRuntime(std::string_view model, std::string_view runtime,
                          const RuntimeLookup& runtimes, std::string_view fallback);

/** A POST /v1/agents body in the definition schema's spelling. */
struct AgentBody {
  ConfigValue definition;
  std::map<std::string, std::string> metadata;
  bool named = false; /**< the body gave a name (then the name is the id) */
  std::string model;  /**< as requested; "" when the body gave none */
};

/**
 * Translates @p body (an object: SDK fields and definition extensions). An
 * unnamed body is named @p id. The definition parser checks the rest.
 */
std::variant<AgentBody, DefinitionError> translateAgentBody(const ConfigValue& body,
                                                            std::string_view id,
                                                            const RuntimeLookup& runtimes);

/**
 * An update over a stored body: each member of @p update replaces the stored
 * one, a null removes it (its default again), an absent one stays.
 */
ConfigValue mergeAgentBody(const ConfigValue& stored, const ConfigValue& update);

/** OpenAI's metadata: an object of at most 16 strings, keys <= 64 and values <= 512 characters. */
std::optional<DefinitionError> readMetadata(const ConfigValue& v, const std::string& path,
                                            std::map<std::string, std::string>& out);

/**
 * The Agent settings this server cannot change, under @p prefix ("" or
 * "agent"): text (format `text`, verbosity `medium`), service_tier (`auto`,
 * `default`), reasoning (no effort or summary), compaction (background),
 * multi_agent (disabled), experimental (time_awareness off). Null or absent
 * is always fine; anything else is the first problem found.
 */
std::optional<DefinitionError> defaultOnlySettings(const ConfigValue& object,
                                                   std::string_view prefix);

/** One `mcp` tool of the Agents API in the definition schema's spelling. */
struct SdkMcpTool {
  std::string label;
  /** {url, headers} or {command, args}, and allowed_tools: an mcp_servers entry. */
  ConfigValue server;
};

/**
 * The `tools` list at @p path ("tools" or "agent.tools"): mcp tools only
 * (else the problem names `<path>[i].type`); @p allow_stdio false refuses a
 * stdio transport (a session cannot start programs a definition did not name).
 */
std::optional<DefinitionError> readSdkTools(const ConfigValue& tools, const std::string& path,
                                            bool allow_stdio, std::vector<SdkMcpTool>& out);

}  // namespace abx::plugins::agents
