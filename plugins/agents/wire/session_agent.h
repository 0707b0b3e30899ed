// A session's inline `agent` and `environment` (SessionCreateParams,
// SessionUpdateParams): instructions, mcp tools, reasoning.effort and
// environment.workspace_directory become the session's overrides for each of
// its turns; the settings agent runtimes cannot change are accepted only at
// their default meaning; anything else is a 400 naming the field.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "abx/sdk/json.h"
#include "openai_error.h"
#include "runtime/agent_runtime.h"
#include "session_memory.h"

namespace abx::plugins::agents {

/** What an inline agent.model may say: the session's agent (its id) or the model its Agent shows.
 */
struct AgentModels {
  std::string id;
  std::string model;
};

/** A create body's top-level fields this server does not take (review, spend_control, unknown
 * keys). */
std::optional<WireError> sessionCreateFieldsProblem(const sdk::Json& body);

/**
 * The create body's `agent` and `environment` as @p out. @p agent runs the
 * session; an inline agent.model must be one of @p agent_model when agent_id
 * is given.
 */
std::optional<WireError> readSessionCreate(const sdk::Json& body, const ResolvedAgent& agent,
                                           const AgentModels& agent_model, SessionOverrides& out);

/** An update body: `agent` (model, reasoning, service_tier, tools) over @p out. */
std::optional<WireError> readSessionUpdate(const sdk::Json& body, const AgentModels& agent_model,
                                           SessionOverrides& out);

/** `metadata` of a create or update body (null: none), under OpenAI's limits. */
std::optional<WireError> readSessionMetadata(const sdk::Json& value,
                                             std::map<std::string, std::string>& out);

}  // namespace abx::plugins::agents
