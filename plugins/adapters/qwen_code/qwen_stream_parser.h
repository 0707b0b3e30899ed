// QwenStreamParser: Qwen Code 0.24 `--output-format stream-json
// --include-partial-messages` stdout -> ParsedEvents. Close to Claude Code's
// stream but not the same (transcripts/qwen/notes.md): every content block's
// index is 0, each block gets its own assistant line (after its
// content_block_stop) with its own message.id, there is no message_delta, a
// provider error arrives as model text "[API Error: ...]", and result.usage is
// cumulative over the whole session (across resumes, including qwen's hidden
// memory-extraction request).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "abx/sdk/agent_adapter.h"
#include "json_reads.h"

namespace abx::plugins::adapters {

/**
 * system/init                      -> session{id: session_id}
 * content_block_delta text/thinking -> text_delta / reasoning_delta{id "<message id>:<n>"}
 *                                     (n counts the blocks since message_start)
 * assistant text / thinking block  -> message / reasoning{same id, full text}
 * assistant tool_use block         -> tool_start{id: tool_use id, tool_kind, server, name:
 *                                     command_execution / file_change / web_search /
 *                                     todo_list, else the MCP or qwen tool name;
 *                                     arguments: input JSON, command: input.command}
 * user tool_result                 -> tool_end{status, text, exit_code (shell tools), error}
 * result                           -> usage, [error{fatal} if is_error], result{ok, text,
 *                                     stop_reason, usage}
 * Text that starts "[API Error" is held back until decided and becomes
 * error{fatal: true, code} (authentication_error for a 401), never a message.
 *
 * Usage is per turn: on a resumed turn of the same qwen session the earlier
 * turns' usage (TurnContext::session_usage) is subtracted from result.usage;
 * when that cannot be right (another session id, or totals below the earlier
 * sum) the sum of this run's per-call assistant usage is used instead.
 */
class QwenStreamParser final : public sdk::agents::EventParser {
 public:
  QwenStreamParser(std::optional<std::string> resumed_session,
                   sdk::agents::TokenUsage earlier_usage);
  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) override;

  static constexpr std::string_view kApiErrorPrefix = "[API Error";

 private:
  struct OpenBlock {
    std::string id;
    std::string text;
    std::string held;    /**< text deltas not yet emitted */
    bool holding = true; /**< could still be an "[API Error" text */
  };

  void onStreamEvent(const sdk::Json& event, std::vector<sdk::agents::ParsedEvent>& out);
  void onTextDelta(std::string delta, std::vector<sdk::agents::ParsedEvent>& out);
  void onThinkingDelta(std::string delta, std::vector<sdk::agents::ParsedEvent>& out);
  void onAssistant(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onUser(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onResult(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void completeText(const std::string& id, const std::string& text,
                    std::vector<sdk::agents::ParsedEvent>& out);
  void closeOpenText(std::vector<sdk::agents::ParsedEvent>& out);
  std::string nextBlockId();
  sdk::agents::TokenUsage turnUsage(const sdk::agents::TokenUsage& cumulative) const;

  const std::optional<std::string> resumed_session_;
  const sdk::agents::TokenUsage earlier_usage_;
  std::string session_id_;
  std::string message_id_ = "msg";
  std::map<std::string, int> blocks_;
  std::set<std::string> used_ids_;
  std::optional<OpenBlock> open_text_;
  std::optional<OpenBlock> open_thinking_;
  std::map<std::string, std::string> tool_kinds_; /**< tool_use id -> tool kind */
  sdk::agents::TokenUsage call_usage_;            /**< sum of per-call assistant usage */
  std::string last_message_;
  bool fatal_error_sent_ = false;
  bool result_sent_ = false;
};

}  // namespace abx::plugins::adapters
