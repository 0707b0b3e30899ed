// CodexJsonlParser ("jsonl-codex"): `codex exec --json` stdout. Codex prints
// every item once, complete (no deltas); item ids (item_0, item_1, ...)
// restart in every process, so they are unique within one turn only (the
// agents runtime gives every item its own wire id and keys parser ids per
// turn, so that is enough). Also the failure-text rules of codex, shared by
// this parser (turn.failed) and the codex adapter's classifyFailure().
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

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
 * turn.completed                      -> usage, result{ok, text: last message, usage}: codex
 *                                        reports usage summed over the whole thread, so this
 *                                        turn's figures are the totals minus @p thread_usage_before
 *                                        (each field floored at 0)
 * error                               -> error{fatal: false} (retries: "Reconnecting... n/5")
 * turn.failed                         -> error{fatal: true, code (classifyCodexFailure)},
 *                                        result{ok: false, text}
 * non-JSON line -> log; other types ignored. finish() adds result{ok: false} when the turn
 * never completed or failed.
 */
class CodexJsonlParser final : public sdk::agents::EventParser {
 public:
  /** @p thread_usage_before: what the thread's earlier turns used (TurnContext::session_usage);
   *  zero for a fresh thread, or when totals are wanted as they are. */
  explicit CodexJsonlParser(sdk::agents::TokenUsage thread_usage_before = {})
      : before_(thread_usage_before) {}
  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) override;

 private:
  void onItem(bool completed, const sdk::Json& item, std::vector<sdk::agents::ParsedEvent>& out);
  void toolItem(bool completed, const std::string& type, const sdk::Json& item,
                std::vector<sdk::agents::ParsedEvent>& out);
  void onTurnCompleted(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onTurnFailed(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);

  sdk::agents::TokenUsage before_;
  std::set<std::string> started_tools_;
  std::string last_message_;
  bool result_sent_ = false;
};

/**
 * What codex's own failure texts mean (stderr tail and/or a turn.failed
 * message): `unexpected status 401/403` -> authentication_error, 429 / quota /
 * usage limit -> rate_limit_exceeded, the context-window message ->
 * context_length_exceeded, `no rollout found for thread id` (resume of a
 * thread codex no longer has) and config errors -> invalid_request; anything
 * else falls back to classifyCommonFailure() without codex's harmless
 * start-up WARNING lines.
 */
sdk::agents::FailureInfo classifyCodexFailure(int exit_code, std::string_view text);

}  // namespace abx::plugins::adapters
