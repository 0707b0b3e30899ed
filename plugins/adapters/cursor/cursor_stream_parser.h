// CursorStreamParser: cursor-agent `-p --output-format stream-json
// --stream-partial-output` stdout -> ParsedEvents. Built from Cursor's public
// documentation and forum reports, not from a captured transcript (there is
// no cursor-agent binary here), so it reads every field defensively.
#pragma once

#include <map>
#include <string>

#include "abx/sdk/agent_adapter.h"
#include "json_reads.h"

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
 * result                         -> [usage], [error{fatal} if is_error], result{ok, text}
 * The open message is closed (message{full text}) at a tool call, the result
 * and finish(). Non-JSON lines -> log; unknown types are ignored.
 */
class CursorStreamParser final : public sdk::agents::EventParser {
 public:
  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) override;

 private:
  void onAssistant(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onThinking(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onToolCall(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onResult(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void closeMessage(std::vector<sdk::agents::ParsedEvent>& out);
  void closeThinking(std::vector<sdk::agents::ParsedEvent>& out);

  bool session_sent_ = false;
  int messages_ = 0;
  int thoughts_ = 0;
  bool message_open_ = false;
  std::string message_id_;
  std::string message_text_; /**< accumulated text of the open message */
  bool thinking_open_ = false;
  std::string thinking_id_;
  std::string thinking_text_;
  std::map<std::string, std::string> tool_kinds_; /**< call_id -> tool kind */
  std::string last_message_;
  bool fatal_error_sent_ = false;
  bool result_sent_ = false;
};

/** What a cursor `tool_call` object ({"<x>ToolCall": {...}}) stands for. */
struct CursorTool {
  std::string key;  /**< e.g. "shellToolCall" */
  std::string kind; /**< command | file_change | web_search | todo_list | mcp | other */
  std::string name; /**< tool name shown on the wire */
  std::string server;
};

CursorTool classifyCursorTool(const std::string& key, const sdk::Json& call);

}  // namespace abx::plugins::adapters
