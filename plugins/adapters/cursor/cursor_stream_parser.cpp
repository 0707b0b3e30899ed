// CursorStreamParser: cursor-agent's own stream-json lines -> ParsedEvents.
#include "cursor_stream_parser.h"

#include <array>

#include "parsed_event.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

namespace {

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

// What a cursor `tool_call` object ({"<x>ToolCall": {...}}) stands for.
ToolKind classifyCursorTool(const std::string& key, const sdk::Json& call) {
  static constexpr std::array<std::string_view, 1> kShell{"shellToolCall"};
  static constexpr std::array<std::string_view, 5> kFiles{
      "editToolCall", "writeToolCall", "deleteToolCall", "multiEditToolCall", "applyPatchToolCall"};
  static constexpr std::array<std::string_view, 2> kWeb{"webSearchToolCall", "webFetchToolCall"};
  static constexpr std::array<std::string_view, 3> kTodo{"updateTodosToolCall", "todoToolCall",
                                                         "todoWriteToolCall"};
  static constexpr BuiltinToolNames kCursorTools{kShell, kFiles, kWeb, kTodo};
  ToolKind tool;
  tool.kind = builtinToolKind(key, kCursorTools);
  tool.name = key;
  if (tool.name.ends_with("ToolCall")) tool.name.resize(tool.name.size() - 8);
  if (tool.name.empty()) tool.name = "tool";
  auto body = json::obj(call, key);
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

// A completed tool_call's result: tool_end{status, text, exit_code, error}.
ParsedEvent toolEnd(const std::string& id, const ToolKind& tool, const sdk::Json& body) {
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
  return e;
}

}  // namespace

// Cursor reports failures on stderr and in the result line, never as model text.
CursorStreamParser::CursorStreamParser()
    : StreamJsonParser({.api_error_text = false,
                        .no_result_text = "cursor-agent exited without a result line"}) {}

bool CursorStreamParser::onLine(const std::string& type, const sdk::Json& line,
                                std::vector<ParsedEvent>& out) {
  if (type == "assistant") {
    onAssistant(line, out);
  } else if (type == "thinking") {
    onThinking(line, out);
  } else if (type == "tool_call") {
    onToolCall(line, out);
  } else {
    return false;
  }
  return true;
}

void CursorStreamParser::onAssistant(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeOpenThinking(out);
  std::string text = contentText(json::obj(line, "message"));
  if (text.empty()) return;
  if (!openText()) openTextItem("msg_" + std::to_string(messages_++), out);
  const std::string& held = *openText();
  // With --stream-partial-output cursor sends chunks, may repeat a chunk, and
  // ends with the whole message once more: only text not seen yet is new.
  if (text == held) return;
  if (!held.empty() && text.starts_with(held) && !line.has("timestamp_ms"))
    text.erase(0, held.size());
  streamText(std::move(text), out);
}

void CursorStreamParser::onThinking(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  if (json::str(line, "subtype") == "completed") {
    closeOpenThinking(out);
    return;
  }
  std::string text = json::str(line, "text");
  if (text.empty()) return;
  if (!thinkingOpen()) openThinkingItem("rs_" + std::to_string(thoughts_++));
  streamThinking(std::move(text), out);
}

void CursorStreamParser::onToolCall(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeOpenText(out);
  closeOpenThinking(out);
  const std::string subtype = json::str(line, "subtype");
  const std::string id = json::str(line, "call_id");
  auto call = json::obj(line, "tool_call");
  const std::string key = toolKey(call);
  if (key.empty()) return;
  ToolKind tool = classifyCursorTool(key, call);
  auto body = json::obj(call, key);
  if (subtype == "started") {
    std::string arguments = key == "function"      ? json::text(body, "arguments")
                            : key == "mcpToolCall" ? json::dump(json::obj(body, "args"), "args")
                                                   : json::dump(body, "args");
    std::string command =
        tool.kind == "command" ? json::str(json::obj(body, "args"), "command") : std::string();
    startTool(id, tool, std::move(arguments), std::move(command), out);
  } else if (subtype == "completed") {
    out.push_back(toolEnd(id, tool, body));
  }
}

std::optional<sdk::agents::TokenUsage> CursorStreamParser::resultUsage(const sdk::Json& line) {
  auto u = json::obj(line, "usage");
  if (!u.isObject()) return std::nullopt;
  sdk::agents::TokenUsage usage;
  usage.input_tokens = firstInteger(u, {"inputTokens", "input_tokens"}).value_or(0);
  usage.output_tokens = firstInteger(u, {"outputTokens", "output_tokens"}).value_or(0);
  usage.cached_input_tokens =
      firstInteger(u, {"cacheReadTokens", "cache_read_input_tokens"}).value_or(0);
  return usage;
}

}  // namespace abx::plugins::adapters
