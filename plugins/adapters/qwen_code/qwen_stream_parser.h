// QwenStreamParser: Qwen Code 0.24 `--output-format stream-json
// --include-partial-messages` stdout -> ParsedEvents. Close to Claude Code's
// stream, so the shared StreamJsonParser reads it (every content block's
// index is 0, each block gets its own assistant line after its
// content_block_stop, a provider error arrives as model text "[API Error:
// ...]": all handled there). What is Qwen's own (transcripts/qwen/notes.md):
// result.usage is cumulative over the whole session (across resumes,
// including qwen's hidden memory-extraction request) and counts cache reads
// into input_tokens as the OpenAI wire does.
#pragma once

#include <optional>
#include <string>

#include "stream_json_parser.h"

namespace abx::plugins::adapters {

/**
 * StreamJsonParser's events, without tool_output (a tool_result is one
 * tool_end) and, without a result line, result{ok: false, text: "qwen exited
 * without a result line"}.
 *
 * Usage is per turn: on a resumed turn of the same qwen session the earlier
 * turns' usage (TurnContext::session_usage) is subtracted from result.usage;
 * when that cannot be right (another session id, or totals below the earlier
 * sum) the sum of this run's per-call assistant usage is used instead.
 */
class QwenStreamParser final : public StreamJsonParser {
 public:
  QwenStreamParser(std::optional<std::string> resumed_session,
                   sdk::agents::TokenUsage earlier_usage);

 private:
  void onAssistantMessage(const sdk::Json& message) override;
  std::optional<sdk::agents::TokenUsage> resultUsage(const sdk::Json& line) override;

  const std::optional<std::string> resumed_session_;
  const sdk::agents::TokenUsage earlier_usage_;
  sdk::agents::TokenUsage call_usage_; /**< sum of per-call assistant usage */
};

}  // namespace abx::plugins::adapters
