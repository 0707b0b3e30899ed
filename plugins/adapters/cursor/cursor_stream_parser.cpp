// CursorStreamParser: cursor-agent stream-json lines -> ParsedEvents.
#include "cursor_stream_parser.h"

#include <array>

#include "parsed_event.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

namespace {

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view name) {
  for (auto n : names)
    if (n == name) return true;
  return false;
}

// The text parts of an assistant message, joined.
std::string messageText(const sdk::Json& message) {
  auto content = json::arr(message, "content");
  if (!content.isArray()) return json::str(message, "content");
  std::string text;
  for (const auto& part : content.elements())
    if (json::str(part, "type") == "text") text += json::str(part, "text");
  return text;
}

// The first member of @p o whose name is listed (the shape varies between releases).
std::string firstString(const sdk::Json& o, std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    if (auto v = json::text(o, key); !v.empty()) return v;
  return {};
}

std::optional<std::int64_t> firstInteger(const sdk::Json& o,
                                         std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    if (auto v = json::integer(o, key)) return v;
  return std::nullopt;
}

// The "<x>ToolCall" (or "function") member of a tool_call object.
std::string toolKey(const sdk::Json& call) {
  for (const auto& [name, value] : call.members())
    if (value.isObject()) return name;
  return {};
}

}  // namespace

CursorTool classifyCursorTool(const std::string& key, const sdk::Json& call) {
  static constexpr std::array<std::string_view, 1> kShell{"shellToolCall"};
  static constexpr std::array<std::string_view, 5> kFiles{
      "editToolCall", "writeToolCall", "deleteToolCall", "multiEditToolCall", "applyPatchToolCall"};
  static constexpr std::array<std::string_view, 2> kWeb{"webSearchToolCall", "webFetchToolCall"};
  static constexpr std::array<std::string_view, 3> kTodo{"updateTodosToolCall", "todoToolCall",
                                                         "todoWriteToolCall"};
  CursorTool tool;
  tool.key = key;
  std::string base = key;
  if (base.ends_with("ToolCall")) base.resize(base.size() - 8);
  tool.name = base.empty() ? "tool" : base;
  tool.kind = listed(kShell, key)   ? "command"
              : listed(kFiles, key) ? "file_change"
              : listed(kWeb, key)   ? "web_search"
              : listed(kTodo, key)  ? "todo_list"
                                    : "other";
  auto body = json::obj(call, key);
  // Built-in kinds carry the wire name agents spec §6.3 gives them.
  if (tool.kind == "command") tool.name = "command_execution";
  if (tool.kind != "command" && tool.kind != "other") tool.name = tool.kind;
  if (key == "mcpToolCall") {
    auto args = json::obj(body, "args");
    tool.kind = "mcp";
    tool.server = firstString(args, {"providerIdentifier", "serverName", "server"});
    tool.name = firstString(args, {"toolName", "name"});
    if (tool.name.empty()) tool.name = "mcp";
  } else if (key == "function") {
    tool.name = json::str(body, "name");
    if (tool.name.empty()) tool.name = "function";
  }
  return tool;
}

void CursorStreamParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  if (line.empty()) return;
  auto o = json::parseObject(line);
  if (!o.isObject()) {
    out.push_back(parsedEvent(ParsedKind::log, {}, std::string(line)));
    return;
  }
  const std::string type = json::str(o, "type");
  if (type == "system") {
    if (json::str(o, "subtype") == "init" && !session_sent_) {
      session_sent_ = true;
      out.push_back(parsedEvent(ParsedKind::session, json::str(o, "session_id")));
    }
  } else if (type == "assistant") {
    onAssistant(o, out);
  } else if (type == "thinking") {
    onThinking(o, out);
  } else if (type == "tool_call") {
    onToolCall(o, out);
  } else if (type == "result") {
    onResult(o, out);
  }
}

void CursorStreamParser::onAssistant(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeThinking(out);
  std::string text = messageText(json::obj(line, "message"));
  if (text.empty()) return;
  if (!message_open_) {
    message_open_ = true;
    message_id_ = "msg_" + std::to_string(messages_++);
    message_text_.clear();
  }
  // With --stream-partial-output cursor sends chunks, may repeat a chunk, and
  // ends with the whole message once more: only text not seen yet is new.
  if (text == message_text_) return;
  std::string delta = text;
  if (!message_text_.empty() && text.starts_with(message_text_) && !line.has("timestamp_ms"))
    delta = text.substr(message_text_.size());
  message_text_ += delta;
  out.push_back(parsedEvent(ParsedKind::text_delta, message_id_, std::move(delta)));
}

void CursorStreamParser::onThinking(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  const std::string subtype = json::str(line, "subtype");
  if (subtype == "completed") {
    closeThinking(out);
    return;
  }
  std::string text = json::str(line, "text");
  if (text.empty()) return;
  if (!thinking_open_) {
    thinking_open_ = true;
    thinking_id_ = "rs_" + std::to_string(thoughts_++);
    thinking_text_.clear();
  }
  thinking_text_ += text;
  out.push_back(parsedEvent(ParsedKind::reasoning_delta, thinking_id_, std::move(text)));
}

void CursorStreamParser::onToolCall(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeMessage(out);
  closeThinking(out);
  const std::string subtype = json::str(line, "subtype");
  const std::string id = json::str(line, "call_id");
  auto call = json::obj(line, "tool_call");
  const std::string key = toolKey(call);
  if (key.empty()) return;
  CursorTool tool = classifyCursorTool(key, call);
  auto body = json::obj(call, key);
  if (subtype == "started") {
    ParsedEvent s = parsedEvent(ParsedKind::tool_start, id);
    s.tool_kind = tool.kind;
    s.name = tool.name;
    s.server = tool.server;
    if (key == "function") {
      s.arguments = json::text(body, "arguments");
    } else if (key == "mcpToolCall") {
      s.arguments = json::dump(json::obj(body, "args"), "args");
    } else {
      s.arguments = json::dump(body, "args");
    }
    if (s.arguments.empty()) s.arguments = "{}";
    if (tool.kind == "command") s.command = json::str(json::obj(body, "args"), "command");
    tool_kinds_[id] = tool.kind;
    out.push_back(std::move(s));
    return;
  }
  if (subtype != "completed") return;
  auto result = json::obj(body, "result");
  sdk::Json outcome = json::obj(result, "success");
  bool failed = false;
  if (!outcome.isObject()) {
    for (const char* bad : {"failure", "error", "rejected", "timeout", "permissionDenied"}) {
      if ((outcome = json::obj(result, bad)).isObject()) {
        failed = true;
        break;
      }
    }
  }
  ParsedEvent e = parsedEvent(ParsedKind::tool_end, id);
  if (tool.kind == "command") {
    e.text = json::str(outcome, "stdout") + json::str(outcome, "stderr");
    if (e.text.empty()) e.text = firstString(outcome, {"output", "interleavedOutput"});
    if (auto code = firstInteger(outcome, {"exitCode", "exit_code"}))
      e.exit_code = static_cast<int>(*code);
    else if (!failed && outcome.isObject())
      e.exit_code = 0;
    if (e.exit_code && *e.exit_code != 0) failed = true;
  } else if (outcome.isObject()) {
    e.text = firstString(outcome, {"content", "output", "result"});
    if (e.text.empty()) e.text = json::dump(outcome);
  }
  if (failed) {
    e.error = firstString(outcome, {"errorMessage", "error", "message", "reason", "stderr"});
    if (e.error.empty() && e.exit_code) e.error = "exit code " + std::to_string(*e.exit_code);
  }
  e.status = failed ? "failed" : "completed";
  out.push_back(std::move(e));
}

void CursorStreamParser::onResult(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeThinking(out);
  closeMessage(out);
  std::optional<sdk::agents::TokenUsage> usage;
  if (auto u = json::obj(line, "usage"); u.isObject()) {
    sdk::agents::TokenUsage t;
    t.input_tokens = firstInteger(u, {"inputTokens", "input_tokens"}).value_or(0);
    t.output_tokens = firstInteger(u, {"outputTokens", "output_tokens"}).value_or(0);
    t.cached_input_tokens =
        firstInteger(u, {"cacheReadTokens", "cache_read_input_tokens"}).value_or(0);
    usage = t;
    ParsedEvent ue = parsedEvent(ParsedKind::usage);
    ue.usage = t;
    out.push_back(std::move(ue));
  }
  const bool is_error = json::flag(line, "is_error");
  const std::string subtype = json::str(line, "subtype");
  std::string text = json::str(line, "result");
  if (is_error && !fatal_error_sent_) {
    std::string why = firstString(line, {"error", "message", "result"});
    if (why.empty()) why = "cursor-agent reported an error (" + subtype + ")";
    ParsedEvent e = parsedEvent(ParsedKind::error, {}, why);
    e.fatal = true;
    e.code = sdk::agents::classifyCommonFailure(1, why).code;
    fatal_error_sent_ = true;
    out.push_back(std::move(e));
  }
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = parsedEvent(ParsedKind::result);
  r.ok = !is_error && (subtype.empty() || subtype == "success");
  r.text = text.empty() ? last_message_ : text;
  r.stop_reason = subtype;
  r.usage = usage;
  out.push_back(std::move(r));
}

void CursorStreamParser::closeMessage(std::vector<ParsedEvent>& out) {
  if (!message_open_) return;
  message_open_ = false;
  last_message_ = message_text_;
  out.push_back(parsedEvent(ParsedKind::message, message_id_, message_text_));
}

void CursorStreamParser::closeThinking(std::vector<ParsedEvent>& out) {
  if (!thinking_open_) return;
  thinking_open_ = false;
  out.push_back(parsedEvent(ParsedKind::reasoning, thinking_id_, thinking_text_));
}

void CursorStreamParser::finish(int, std::vector<ParsedEvent>& out) {
  closeThinking(out);
  closeMessage(out);
  if (result_sent_) return;
  result_sent_ = true;
  // cursor-agent reports failures on stderr and ends without a result line;
  // the runtime classifies the exit code and stderr.
  ParsedEvent r = parsedEvent(ParsedKind::result, {}, "cursor-agent exited without a result line");
  r.ok = false;
  out.push_back(std::move(r));
}

}  // namespace abx::plugins::adapters
