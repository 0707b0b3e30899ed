// ResponsesRequest: a POST /v1/responses body read and checked against the
// agents spec §6.4 rules — input as a string or message list (the last user
// message is the prompt, system/developer messages become extra
// instructions, earlier user/assistant messages the "conversation so far"
// preface of a new session, images and files refused), only `mcp` tools,
// tool_choice auto/none, text.format text, sampling parameters accepted but
// named as ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/json.h"
#include "openai_error.h"
#include "runtime/runtime_types.h"

namespace abx::plugins::agents {

struct ResponsesRequest {
  std::string model;
  std::string prompt;              /**< the last user message */
  std::string preface;             /**< earlier conversation, bounded (newest kept) */
  std::string extra_instructions;  /**< `instructions` + system/developer messages */
  std::string instructions;        /**< `instructions` as sent (echoed back) */
  std::vector<InputMessage> input; /**< the messages, for input_items (ids filled later) */
  bool stream = false;
  bool background = false;
  bool store = true;
  std::string previous_response_id;
  std::map<std::string, std::string> metadata;
  std::vector<sdk::agents::McpServerSpec> mcp_tools;
  std::string tools_json = "[]"; /**< echoed back, header values masked */
  std::string tool_choice = "auto";
  std::string reasoning_effort;
  std::optional<double> temperature;
  std::optional<double> top_p;
  bool parallel_tool_calls = true;
  std::vector<std::string> ignored_params;
};

/** Size of the "conversation so far" preface; the newest part is kept. */
inline constexpr std::size_t kMaxPrefaceBytes = 64u << 10;

/** Reads @p body (the pipeline's parsed request body); a failure is the 400 to send. */
std::variant<ResponsesRequest, WireError> parseResponsesRequest(const sdk::Json& body);

/** The prompt of a turn: the preface (if any) then the user's message. */
std::string promptWithPreface(const ResponsesRequest& request);

}  // namespace abx::plugins::agents
