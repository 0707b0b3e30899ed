// The Responses wire's objects (openai-wire.md §6): the Response object and
// its output items (message, reasoning, and mcp_call for every CLI tool
// activity, so clients treat tools as already executed), built from the
// runtime's Turn and Items.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime_types.h"

namespace abx::plugins::agents {

/** What a Response echoes from its request. */
struct ResponseEcho {
  std::string model;
  std::string instructions;
  std::map<std::string, std::string> metadata;
  std::string tools_json = "[]";
  std::string tool_choice = "auto";
  std::optional<double> temperature;
  std::optional<double> top_p;
  bool parallel_tool_calls = true;
  bool background = false;
  bool store = true;
  std::string previous_response_id;
  std::string reasoning_effort;
};

/** resp_<hex> for turn_<hex>, and back ("" when @p id has the wrong prefix). */
std::string responseIdForTurn(const std::string& turn_id);
std::string turnIdForResponse(const std::string& response_id);

/** Responses status of a turn: queued, in_progress, completed, failed,
 *  cancelled, or incomplete (failed at a limit that has an incompleteReason). */
std::string responseStatus(const Turn& turn);

/** incomplete_details.reason for a turn's failure: max_output_tokens for
 *  the output limit, max_messages for the turn limit (limits.max_turns);
 *  "" when the failure is a plain failure. */
std::string incompleteReason(const std::optional<TurnError>& error);

/** An output item; @p initial gives the output_item.added shape (empty content). */
std::string outputItemJson(const Item& item, bool initial = false);

std::string usageJson(const sdk::agents::TokenUsage& usage);

/** The full Response object. @p items_json is the output array's text. */
std::string responseJson(const std::string& id, std::int64_t created_at, const std::string& status,
                         const ResponseEcho& echo, const std::string& items_json,
                         const std::optional<TurnError>& error,
                         const sdk::agents::TokenUsage& usage, std::int64_t completed_at);

/** The Response for a turn as it stands. */
std::string responseJsonForTurn(const Turn& turn, const ResponseEcho& echo);

/** A message of the input, as input_items lists it. */
std::string inputItemJson(const InputMessage& message);

}  // namespace abx::plugins::agents
