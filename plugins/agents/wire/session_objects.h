// The Agents wire's objects (openai-wire.md §9.3–§9.5): AgentSession, Turn
// (subagent_id always present and null), and session items in the Agents
// shapes (message with phase, reasoning, command_execution, mcp_call).
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "runtime/runtime_types.h"

namespace abx::plugins::agents {

/** The Agents-wire error code for a runtime failure code (sandbox_error for the Responses-only
 * ones). */
std::string agentsErrorCode(const std::string& code);

/** The fixed members of an Agent object here: multi_agent (off), reasoning
 *  (nulls), service_tier, text (plain). */
void writeAgentSettings(sdk::JsonWriter& w);

/** What the Agents wire keeps of a session beside the runtime's record. */
struct SessionExtras {
  std::vector<std::string> vault_ids;
  /** Its AgentSession.Agent object; "" = one made from the agent's name
   *  alone (a definition that is gone). */
  std::string agent_json;
};

std::string sessionJson(const SessionInfo& session, const SessionExtras& extras = {},
                        const std::string& error = {});
std::string turnJson(const Turn& turn, const std::string& agent);
std::string tokenUsageJson(const sdk::agents::TokenUsage& usage);
/** An output item; @p initial gives the turn.item.added shape. */
std::string sessionItemJson(const Item& item, bool initial = false);
/** A user message of a turn's input. */
std::string userItemJson(const InputMessage& message, const std::string& turn_id);

}  // namespace abx::plugins::agents
