// CodexJsonlParser: codex exec --json lines -> ParsedEvents.
#include "codex_jsonl_parser.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

namespace {

ParsedEvent event(ParsedKind kind, std::string id = {}, std::string text = {}) {
  ParsedEvent e;
  e.kind = kind;
  e.id = std::move(id);
  e.text = std::move(text);
  return e;
}

// Codex exposes no arguments for its built-in tools; the item's own payload
// stands in, so the wires have a JSON object to show.
std::string argumentsObject(std::string_view key, const std::string& value_json) {
  if (value_json.empty()) return "{}";
  return "{\"" + std::string(key) + "\":" + value_json + "}";
}

// MCP results are content blocks; their text parts are what a reader wants.
std::string mcpResultText(const json::ObjectPtr& result) {
  if (!result) return {};
  std::string text;
  if (auto content = json::arr(result, "content")) {
    for (std::size_t i = 0; i < content->size(); ++i) {
      auto block = content->getObject(static_cast<unsigned>(i));
      if (json::str(block, "type") == "text") text += json::str(block, "text");
    }
  }
  return text.empty() ? json::dump(result) : text;
}

}  // namespace

void CodexJsonlParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  if (line.empty()) return;
  auto o = reader_.parseObject(line);
  if (!o) {
    out.push_back(event(ParsedKind::log, {}, std::string(line)));
    return;
  }
  const std::string type = json::str(o, "type");
  if (type == "thread.started") {
    out.push_back(event(ParsedKind::session, json::str(o, "thread_id")));
  } else if (type == "item.started" || type == "item.completed") {
    onItem(type == "item.completed", json::obj(o, "item"), out);
  } else if (type == "turn.completed") {
    onTurnCompleted(o, out);
  } else if (type == "turn.failed") {
    onTurnFailed(o, out);
  } else if (type == "error") {
    out.push_back(event(ParsedKind::error, {}, json::str(o, "message")));
  }
}

void CodexJsonlParser::onItem(bool completed, const json::ObjectPtr& item,
                              std::vector<ParsedEvent>& out) {
  if (!item) return;
  const std::string type = json::str(item, "type");
  const std::string id = json::str(item, "id");
  if (type == "agent_message") {
    if (!completed) return;
    last_message_ = json::str(item, "text");
    out.push_back(event(ParsedKind::message, id, last_message_));
  } else if (type == "reasoning") {
    if (completed) out.push_back(event(ParsedKind::reasoning, id, json::str(item, "text")));
  } else if (type == "error") {
    // Codex reports recoverable problems as error items; the turn goes on.
    if (completed) out.push_back(event(ParsedKind::error, {}, json::str(item, "message")));
  } else if (type == "command_execution" || type == "mcp_tool_call" || type == "file_change" ||
             type == "web_search" || type == "todo_list") {
    toolItem(completed, type, item, out);
  }
}

void CodexJsonlParser::toolItem(bool completed, const std::string& type,
                                const json::ObjectPtr& item, std::vector<ParsedEvent>& out) {
  const std::string id = json::str(item, "id");
  if (!started_tools_.contains(id)) {
    started_tools_.insert(id);
    ParsedEvent s = event(ParsedKind::tool_start, id);
    s.name = type;
    if (type == "command_execution") {
      s.tool_kind = "command";
      s.command = json::str(item, "command");
      s.arguments = argumentsObject("command", json::dump(item, "command"));
    } else if (type == "mcp_tool_call") {
      s.tool_kind = "mcp";
      s.server = json::str(item, "server");
      s.name = json::str(item, "tool");
      s.arguments = json::dump(item, "arguments");
      if (s.arguments.empty()) s.arguments = "{}";
    } else if (type == "file_change") {
      s.tool_kind = "file_change";
      s.arguments = argumentsObject("changes", json::dump(item, "changes"));
    } else if (type == "web_search") {
      s.tool_kind = "web_search";
      s.arguments = argumentsObject("query", json::dump(item, "query"));
    } else {
      s.tool_kind = "todo_list";
      s.arguments = argumentsObject("items", json::dump(item, "items"));
    }
    out.push_back(std::move(s));
  }
  if (!completed) return;

  ParsedEvent e = event(ParsedKind::tool_end, id);
  std::string status = json::str(item, "status");
  if (type == "command_execution") {
    e.text = json::str(item, "aggregated_output");
    if (auto code = json::integer(item, "exit_code")) e.exit_code = static_cast<int>(*code);
  } else if (type == "mcp_tool_call") {
    e.text = mcpResultText(json::obj(item, "result"));
    e.error = json::str(json::obj(item, "error"), "message");
  } else if (type == "file_change") {
    e.text = json::dump(item, "changes");
  } else if (type == "todo_list") {
    e.text = json::dump(item, "items");
  }
  // Codex statuses: completed, failed, declined (command refused), in_progress.
  const bool failed = status == "failed" || status == "declined" || !e.error.empty() ||
                      (e.exit_code && *e.exit_code != 0);
  e.status = failed ? "failed" : "completed";
  if (failed && e.error.empty() && status == "declined") e.error = "declined";
  out.push_back(std::move(e));
}

void CodexJsonlParser::onTurnCompleted(const json::ObjectPtr& line, std::vector<ParsedEvent>& out) {
  sdk::agents::TokenUsage usage;
  auto u = json::obj(line, "usage");
  usage.input_tokens = json::integer(u, "input_tokens").value_or(0);
  usage.cached_input_tokens = json::integer(u, "cached_input_tokens").value_or(0);
  usage.output_tokens = json::integer(u, "output_tokens").value_or(0);
  usage.reasoning_tokens = json::integer(u, "reasoning_output_tokens").value_or(0);
  ParsedEvent ue = event(ParsedKind::usage);
  ue.usage = usage;
  out.push_back(std::move(ue));
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = event(ParsedKind::result, {}, last_message_);
  r.ok = true;
  r.usage = usage;
  out.push_back(std::move(r));
}

void CodexJsonlParser::onTurnFailed(const json::ObjectPtr& line, std::vector<ParsedEvent>& out) {
  std::string message = json::str(json::obj(line, "error"), "message");
  ParsedEvent e = event(ParsedKind::error, {}, message);
  e.fatal = true;
  e.code = sdk::agents::classifyCommonFailure(1, message).code;
  out.push_back(std::move(e));
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = event(ParsedKind::result, {}, message);
  r.ok = false;
  out.push_back(std::move(r));
}

void CodexJsonlParser::finish(int, std::vector<ParsedEvent>& out) {
  if (result_sent_) return;
  result_sent_ = true;
  // The CLI ended without turn.completed/turn.failed (crash, kill): the
  // runtime classifies the exit code and stderr.
  ParsedEvent r = event(ParsedKind::result, {}, last_message_);
  r.ok = false;
  out.push_back(std::move(r));
}

}  // namespace abx::plugins::adapters
