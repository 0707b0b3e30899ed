// ClaudeStreamParser ("jsonl-claude"): Claude Code and Qwen Code
// `--output-format stream-json` stdout, with or without
// `--include-partial-messages`. Both CLIs repeat every content block: as
// stream_event deltas and again as an `assistant` line; the shared
// StreamJsonParser streams the deltas and closes the same item with the
// assistant line's full text. What is Claude's own is its usage.
#pragma once

#include "stream_json_parser.h"

namespace abx::plugins::adapters {

/**
 * StreamJsonParser's events, with tool_output before every tool_end that has
 * text and, without a result line, result{ok: false, text: the last message}.
 * tool_start.name is the wire's: command_execution / file_change / web_search
 * / todo_list for the CLI's built-in tools of those kinds, the tool's own name
 * for MCP tools and any other tool. Usage: result.usage (per invocation for
 * Claude) with cache reads and writes counted into input_tokens, thinking
 * tokens as reasoning_tokens, and the cost of this invocation.
 */
class ClaudeStreamParser final : public StreamJsonParser {
 public:
  ClaudeStreamParser() : StreamJsonParser(Options{}) {}

 private:
  std::optional<sdk::agents::TokenUsage> resultUsage(const sdk::Json& line) override;
};

}  // namespace abx::plugins::adapters
