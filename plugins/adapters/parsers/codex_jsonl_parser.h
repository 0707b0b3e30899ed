// CodexJsonlParser ("jsonl-codex"): `codex exec --json` stdout. Codex prints
// every item once, complete (no deltas); item ids (item_0, item_1, ...)
// restart in every process, so they are unique within one turn only.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "abx/sdk/agent_adapter.h"
#include "json_reads.h"

namespace abx::plugins::adapters {

/**
 * thread.started                      -> session{id: thread_id}
 * item.completed error                -> error{fatal: false, text} (a warning, e.g. model metadata)
 * item.completed reasoning            -> reasoning{id, text}
 * item.started command_execution      -> tool_start{id, tool_kind "command",
 *                                        name "command_execution", command, arguments {"command"}}
 * item.completed command_execution    -> tool_end{id, status completed|failed, text: output,
 *                                        exit_code} (tool_start first if never started)
 * mcp_tool_call / file_change / web_search / todo_list: the same pair, tool_kind mcp (server,
 *   name = MCP tool) / file_change / web_search / todo_list
 * item.completed agent_message        -> message{id, text}
 * turn.completed                      -> usage (thread-cumulative!), result{ok, text: last message}
 * error                               -> error{fatal: false} (retries: "Reconnecting... n/5")
 * turn.failed                         -> error{fatal: true, code}, result{ok: false, text}
 * non-JSON line -> log; other types ignored. finish() adds result{ok: false} when the turn
 * never completed or failed.
 */
class CodexJsonlParser final : public sdk::agents::EventParser {
 public:
  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) override;

 private:
  void onItem(bool completed, const json::ObjectPtr& item,
              std::vector<sdk::agents::ParsedEvent>& out);
  void toolItem(bool completed, const std::string& type, const json::ObjectPtr& item,
                std::vector<sdk::agents::ParsedEvent>& out);
  void onTurnCompleted(const json::ObjectPtr& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onTurnFailed(const json::ObjectPtr& line, std::vector<sdk::agents::ParsedEvent>& out);

  json::LineReader reader_;
  std::set<std::string> started_tools_;
  std::string last_message_;
  bool result_sent_ = false;
};

}  // namespace abx::plugins::adapters
