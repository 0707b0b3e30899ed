// CursorStreamParser: cursor-agent `-p --output-format stream-json
// --stream-partial-output` stdout -> ParsedEvents. Built from Cursor's public
// documentation and forum reports, not from a captured transcript (there is
// no cursor-agent binary here), so it reads every field defensively. The
// shared StreamJsonParser reads system/init, result and anything shaped like
// Claude's stream; cursor's own lines (assistant text chunks, thinking,
// tool_call) and usage field names are read here.
#pragma once

#include <string>

#include "stream_json_parser.h"

namespace abx::plugins::adapters {

/**
 * system/init                    -> session{id: session_id (the --resume chat id)}
 * assistant text                 -> text_delta{id "msg_<n>"} for new text; a line whose text
 *                                   equals what the current message already holds (cursor's
 *                                   consolidated duplicate, or a repeated chunk) adds nothing,
 *                                   one that extends it adds only the rest
 * thinking delta / completed     -> reasoning_delta / reasoning{id "rs_<n>"}
 * tool_call started              -> (message closed) tool_start{id: call_id, tool_kind, name
 *                                   (command_execution / file_change / ..., the MCP tool or
 *                                   the tool's own name), arguments, command}
 * tool_call completed            -> tool_end{status completed|failed, text, exit_code, error}
 * result                         -> [usage], [error{fatal} if is_error or a subtype other
 *                                   than success], result{ok, text}
 * The open message is closed (message{full text}) at a tool call, the result
 * and finish(). Non-JSON lines -> log; unknown types are ignored.
 */
class CursorStreamParser final : public StreamJsonParser {
 public:
  CursorStreamParser();

 private:
  bool onLine(const std::string& type, const sdk::Json& line,
              std::vector<sdk::agents::ParsedEvent>& out) override;
  std::optional<sdk::agents::TokenUsage> resultUsage(const sdk::Json& line) override;
  void onAssistant(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onThinking(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onToolCall(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);

  int messages_ = 0;
  int thoughts_ = 0;
};

}  // namespace abx::plugins::adapters
