// CodexJsonlParser: codex exec --json lines -> ParsedEvents.
#include "codex_jsonl_parser.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "parsed_event.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

namespace {

// Codex exposes no arguments for its built-in tools; the item's own payload
// stands in, so the wires have a JSON object to show.
std::string argumentsObject(std::string_view key, const std::string& value_json) {
  if (value_json.empty()) return "{}";
  return sdk::JsonWriter().beginObject().key(key).raw(value_json).endObject().take();
}

// MCP results are content blocks; their text parts are what a reader wants.
std::string mcpResultText(const sdk::Json& result) {
  if (!result.isObject()) return {};
  std::string text;
  for (const auto& block : json::arr(result, "content").elements())
    if (json::str(block, "type") == "text") text += json::str(block, "text");
  return text.empty() ? json::dump(result) : text;
}

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

template <std::size_t N>
bool containsAny(const std::string& text, const std::array<std::string_view, N>& needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return text.find(n) != std::string::npos; });
}

// Codex prints this on every start when its home is under /tmp; it says
// nothing about a failure and must not become the error message.
bool isStartupNoise(std::string_view line) {
  return line.starts_with("WARNING: proceeding, even though we could not create PATH aliases");
}

// The text without start-up noise and blank lines.
std::string withoutNoise(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    auto end = text.find('\n');
    auto line = text.substr(0, end);
    if (!line.empty() && !isStartupNoise(line)) {
      if (!out.empty()) out += '\n';
      out += line;
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// The last line of @p text that mentions @p needle (lower-case), else its last line.
std::string lineWith(const std::string& text, std::string_view needle) {
  std::string best;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    std::string line =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && (best.empty() || lowered(line).find(needle) != std::string::npos))
      best = line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return best;
}

}  // namespace

sdk::agents::FailureInfo classifyCodexFailure(int exit_code, std::string_view text) {
  const std::string said = withoutNoise(text);
  const std::string low = lowered(said);
  static constexpr std::array<std::string_view, 4> kAuth{"unexpected status 401",
                                                         "unexpected status 403", "invalid_api_key",
                                                         "missing environment variable"};
  static constexpr std::array<std::string_view, 5> kRate{
      "unexpected status 429", "last status: 429", "quota exceeded", "usage limit", "rate limit"};
  static constexpr std::array<std::string_view, 2> kContext{"context window",
                                                            "context_length_exceeded"};
  if (containsAny(low, kAuth)) return {"authentication_error", lineWith(said, "status 40")};
  if (containsAny(low, kRate)) return {"rate_limit_exceeded", lineWith(said, "429")};
  if (containsAny(low, kContext)) return {"context_length_exceeded", lineWith(said, "context")};
  if (low.find("no rollout found for thread id") != std::string::npos)
    return {"invalid_request",
            lineWith(said, "no rollout found") +
                " (hint: codex no longer has this thread under $HOME/.codex; start a new "
                "session)"};
  if (low.find("error loading config") != std::string::npos) return {"invalid_request", said};
  return sdk::agents::classifyCommonFailure(exit_code, said);
}

void CodexJsonlParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  if (line.empty()) return;
  auto o = json::parseObject(line);
  if (!o.isObject()) {
    out.push_back(parsedEvent(ParsedKind::log, {}, std::string(line)));
    return;
  }
  const std::string type = json::str(o, "type");
  if (type == "thread.started") {
    out.push_back(parsedEvent(ParsedKind::session, json::str(o, "thread_id")));
  } else if (type == "item.started" || type == "item.completed") {
    onItem(type == "item.completed", json::obj(o, "item"), out);
  } else if (type == "turn.completed") {
    onTurnCompleted(o, out);
  } else if (type == "turn.failed") {
    onTurnFailed(o, out);
  } else if (type == "error") {
    out.push_back(parsedEvent(ParsedKind::error, {}, json::str(o, "message")));
  }
}

void CodexJsonlParser::onItem(bool completed, const sdk::Json& item,
                              std::vector<ParsedEvent>& out) {
  if (!item.isObject()) return;
  const std::string type = json::str(item, "type");
  const std::string id = json::str(item, "id");
  if (type == "agent_message") {
    if (!completed) return;
    last_message_ = json::str(item, "text");
    out.push_back(parsedEvent(ParsedKind::message, id, last_message_));
  } else if (type == "reasoning") {
    if (completed) out.push_back(parsedEvent(ParsedKind::reasoning, id, json::str(item, "text")));
  } else if (type == "error") {
    // Codex reports recoverable problems as error items; the turn goes on.
    if (completed) out.push_back(parsedEvent(ParsedKind::error, {}, json::str(item, "message")));
  } else if (type == "command_execution" || type == "mcp_tool_call" || type == "file_change" ||
             type == "web_search" || type == "todo_list") {
    toolItem(completed, type, item, out);
  }
}

void CodexJsonlParser::toolItem(bool completed, const std::string& type, const sdk::Json& item,
                                std::vector<ParsedEvent>& out) {
  const std::string id = json::str(item, "id");
  if (!started_tools_.contains(id)) {
    started_tools_.insert(id);
    ParsedEvent s = parsedEvent(ParsedKind::tool_start, id);
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

  ParsedEvent e = parsedEvent(ParsedKind::tool_end, id);
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

void CodexJsonlParser::onTurnCompleted(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  sdk::agents::TokenUsage usage;
  auto u = json::obj(line, "usage");
  // Thread totals minus the earlier turns. Floored at 0: an earlier turn
  // that was cancelled before codex reported its usage counts as 0 here.
  auto thisTurn = [&](const char* key, std::int64_t before) {
    return std::max<std::int64_t>(0, json::integer(u, key).value_or(0) - before);
  };
  usage.input_tokens = thisTurn("input_tokens", before_.input_tokens);
  usage.cached_input_tokens = thisTurn("cached_input_tokens", before_.cached_input_tokens);
  usage.output_tokens = thisTurn("output_tokens", before_.output_tokens);
  usage.reasoning_tokens = thisTurn("reasoning_output_tokens", before_.reasoning_tokens);
  ParsedEvent ue = parsedEvent(ParsedKind::usage);
  ue.usage = usage;
  out.push_back(std::move(ue));
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = parsedEvent(ParsedKind::result, {}, last_message_);
  r.ok = true;
  r.usage = usage;
  out.push_back(std::move(r));
}

void CodexJsonlParser::onTurnFailed(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  std::string message = json::str(json::obj(line, "error"), "message");
  ParsedEvent e = parsedEvent(ParsedKind::error, {}, message);
  e.fatal = true;
  e.code = classifyCodexFailure(1, message).code;
  out.push_back(std::move(e));
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = parsedEvent(ParsedKind::result, {}, message);
  r.ok = false;
  out.push_back(std::move(r));
}

void CodexJsonlParser::finish(int, std::vector<ParsedEvent>& out) {
  if (result_sent_) return;
  result_sent_ = true;
  // The CLI ended without turn.completed/turn.failed (crash, kill): the
  // runtime classifies the exit code and stderr.
  ParsedEvent r = parsedEvent(ParsedKind::result, {}, last_message_);
  r.ok = false;
  out.push_back(std::move(r));
}

}  // namespace abx::plugins::adapters
