// ClaudeStreamParser ("jsonl-claude"): Claude Code and Qwen Code
// `--output-format stream-json` stdout, with or without
// `--include-partial-messages`. Both CLIs repeat every content block: as
// stream_event deltas and again as an `assistant` line; this parser streams
// the deltas and closes the same item with the assistant line's full text.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "abx/sdk/agent_adapter.h"
#include "json_reads.h"

namespace abx::plugins::adapters {

/**
 * system/init                         -> session{id: session_id}
 * system/api_retry                    -> error{fatal: false, code}
 * stream_event content_block_delta    -> text_delta / reasoning_delta{id: "<message id>:<n>"}
 *                                        (n counts the blocks of that API message)
 * assistant text block                -> message{same id as its deltas, full text}
 * assistant thinking block            -> reasoning{same id as its deltas, full text}
 * assistant tool_use block            -> tool_start{id: tool_use id, name, tool_kind, server,
 *                                        arguments: input JSON, command: input.command}
 * user tool_result block              -> tool_output{id: tool_use_id, text: content},
 *                                        tool_end{id, status completed|failed, text: content,
 *                                        exit_code (shell tools), error}
 * result                              -> usage, [error{fatal} if is_error or an error_*
 *                                        subtype], result{ok, text, stop_reason, usage}
 * tool_start.name is the wire's: command_execution / file_change / web_search /
 * todo_list for the CLI's built-in tools of those kinds, the tool's own name
 * for MCP tools and any other tool. Usage: result.usage (per invocation for
 * Claude) with cache reads and writes counted into input_tokens.
 * An API error shown as assistant text (Claude's `<synthetic>` message, Qwen's
 * "[API Error: ..." text) becomes error{fatal: true, code}, never a message:
 * a text block whose first characters could start "[API Error" is held back
 * until it is decided. Non-JSON line -> log; other types ignored. finish()
 * closes an open text block and adds result{ok: false} if none arrived
 * (with the code and text of the last api_retry when it was retrying).
 */
class ClaudeStreamParser final : public sdk::agents::EventParser {
 public:
  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) override;

 private:
  /** A text or thinking block that is streaming and has no assistant line yet. */
  struct OpenBlock {
    std::string id;
    std::string text;
    std::string held;    /**< deltas not yet emitted (text blocks only) */
    bool holding = true; /**< still could be an "[API Error" text */
  };

  void onSystem(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onStreamEvent(const sdk::Json& event, std::vector<sdk::agents::ParsedEvent>& out);
  void onTextDelta(const std::string& delta, std::vector<sdk::agents::ParsedEvent>& out);
  void onThinkingDelta(std::string delta, std::vector<sdk::agents::ParsedEvent>& out);
  void onAssistant(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onUser(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onResult(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  /** Ends a text item: message, or a fatal error when it is an API error text. */
  void completeText(const std::string& id, const std::string& text, bool api_error,
                    const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void closeOpenText(std::vector<sdk::agents::ParsedEvent>& out);
  std::string newBlockId(const std::string& message_id);

  bool session_sent_ = false;
  std::string stream_message_id_;
  std::optional<OpenBlock> open_text_;
  std::optional<OpenBlock> open_thinking_;
  std::map<std::string, int> blocks_per_message_;
  std::set<std::string> used_ids_;
  std::map<std::string, std::string> tool_kinds_; /**< tool_use id -> tool kind */
  std::string last_message_;
  std::optional<sdk::agents::ParsedEvent> last_retry_; /**< the latest api_retry error */
  bool fatal_error_sent_ = false;
  bool result_sent_ = false;
};

}  // namespace abx::plugins::adapters
