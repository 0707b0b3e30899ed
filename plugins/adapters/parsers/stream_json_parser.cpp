// StreamJsonParser: stream-json lines (Claude Code, Qwen Code, cursor-agent) -> ParsedEvents.
#include "stream_json_parser.h"

#include "parsed_event.h"
#include "stream_delta_scan.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

namespace {

// Qwen streams a provider error as ordinary model text with this prefix.
constexpr std::string_view kApiErrorPrefix = "[API Error";

// Claude's answer to `--resume <id>` when the session is gone (HOME wiped).
constexpr std::string_view kNoConversation = "No conversation found with session ID";

std::string failureCode(const std::string& text) {
  return sdk::agents::classifyCommonFailure(1, text).code;
}

// The code of an error line that may carry Claude's api_error_status. The
// status decides when there is one: the text can hold a session id, and a
// uuid may well contain "401".
std::string lineFailureCode(const sdk::Json& line, const std::string& text) {
  if (text.find(kNoConversation) != std::string::npos) return "invalid_request";
  // The turn limit the definition set: the wires report an incomplete turn.
  if (json::str(line, "subtype") == "error_max_turns") return "max_turns_exceeded";
  if (auto status = json::integer(line, "api_error_status")) {
    if (*status == 401 || *status == 403) return "authentication_error";
    if (*status == 429) return "rate_limit_exceeded";
  }
  return failureCode(text);
}

// The text of a failed result: error.message (qwen) or error as a string
// (cursor), errors[] (claude's "No conversation found ..."), message
// (cursor), the result text, else what the subtype means.
std::string resultErrorText(const sdk::Json& line) {
  std::string text = json::str(json::obj(line, "error"), "message");
  if (text.empty()) text = json::str(line, "error");
  if (auto errors = json::arr(line, "errors"); errors.isArray() && text.empty()) {
    for (const auto& value : errors.elements()) {
      if (!value.isString()) continue;
      text += (text.empty() ? "" : "; ") + std::string(value.stringView());
    }
  }
  if (text.empty()) text = json::str(line, "message");
  if (text.empty()) text = json::str(line, "result");
  if (!text.empty()) return text;
  const std::string subtype = json::str(line, "subtype");
  if (subtype == "error_max_turns") return "the agent stopped at its max_turns limit";
  if (subtype == "error_max_budget_usd") return "the agent stopped at its max_budget_usd limit";
  return subtype.empty() ? "the agent reported an error" : "the agent stopped: " + subtype;
}

}  // namespace

bool StreamJsonParser::onLine(const std::string&, const sdk::Json&, std::vector<ParsedEvent>&) {
  return false;
}

void StreamJsonParser::onAssistantMessage(const sdk::Json&) {}

void StreamJsonParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  if (line.empty()) return;
  if (auto delta = scanStreamDelta(line)) {
    if (delta->thinking)
      streamThinking(std::move(delta->text), out);
    else
      streamText(std::move(delta->text), out);
    return;
  }
  auto o = json::parseObject(line);
  if (!o.isObject()) {
    out.push_back(parsedEvent(ParsedKind::log, {}, std::string(line)));
    return;
  }
  const std::string type = json::str(o, "type");
  if (onLine(type, o, out)) return;
  if (type == "system") {
    onSystem(o, out);
  } else if (type == "stream_event") {
    onStreamEvent(json::obj(o, "event"), out);
  } else if (type == "assistant") {
    onAssistant(o, out);
  } else if (type == "user") {
    onUser(o, out);
  } else if (type == "result") {
    onResult(o, out);
  }
}

void StreamJsonParser::onSystem(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  const std::string subtype = json::str(line, "subtype");
  if (subtype == "init" && !session_sent_) {
    session_sent_ = true;
    session_id_ = json::str(line, "session_id");
    out.push_back(parsedEvent(ParsedKind::session, session_id_));
  } else if (subtype == "api_retry") {
    std::string text = "API request failed (" + json::text(line, "error") + ", status " +
                       json::text(line, "error_status") + "); retry " +
                       json::text(line, "attempt") + "/" + json::text(line, "max_retries");
    ParsedEvent e = parsedEvent(ParsedKind::error, {}, text);
    e.code = failureCode(text);
    last_retry_ = e;
    out.push_back(std::move(e));
  }
}

void StreamJsonParser::onStreamEvent(const sdk::Json& ev, std::vector<ParsedEvent>& out) {
  const std::string type = json::str(ev, "type");
  if (type == "message_start") {
    stream_message_id_ = json::str(json::obj(ev, "message"), "id");
  } else if (type == "content_block_start") {
    const std::string block_type = json::str(json::obj(ev, "content_block"), "type");
    if (block_type == "text") {
      openTextItem(newBlockId(stream_message_id_), out);
    } else if (block_type == "thinking") {
      openThinkingItem(newBlockId(stream_message_id_));
    }
  } else if (type == "content_block_delta") {
    auto delta = json::obj(ev, "delta");
    const std::string delta_type = json::str(delta, "type");
    if (delta_type == "text_delta")
      streamText(json::str(delta, "text"), out);
    else if (delta_type == "thinking_delta")
      streamThinking(json::str(delta, "thinking"), out);
  }
}

void StreamJsonParser::openTextItem(std::string id, std::vector<ParsedEvent>& out) {
  closeOpenText(out);
  open_text_ = OpenBlock{std::move(id), {}, {}, options_.api_error_text};
}

void StreamJsonParser::streamText(std::string delta, std::vector<ParsedEvent>& out) {
  if (!open_text_) openTextItem(newBlockId(stream_message_id_), out);
  auto& block = *open_text_;
  block.text += delta;
  if (!block.holding) {
    out.push_back(parsedEvent(ParsedKind::text_delta, block.id, std::move(delta)));
    return;
  }
  block.held += delta;
  const bool could_be_error =
      block.text.starts_with(kApiErrorPrefix) || kApiErrorPrefix.starts_with(block.text);
  if (could_be_error) return;
  block.holding = false;
  out.push_back(parsedEvent(ParsedKind::text_delta, block.id, std::move(block.held)));
  block.held.clear();
}

void StreamJsonParser::openThinkingItem(std::string id) {
  open_thinking_ = OpenBlock{std::move(id), {}, {}, false};
}

void StreamJsonParser::streamThinking(std::string delta, std::vector<ParsedEvent>& out) {
  if (!open_thinking_) openThinkingItem(newBlockId(stream_message_id_));
  open_thinking_->text += delta;
  out.push_back(parsedEvent(ParsedKind::reasoning_delta, open_thinking_->id, std::move(delta)));
}

void StreamJsonParser::closeOpenThinking(std::vector<ParsedEvent>& out) {
  if (!open_thinking_) return;
  OpenBlock block = std::move(*open_thinking_);
  open_thinking_.reset();
  // A block that said nothing yet is no item (as an empty assistant thinking block).
  if (block.text.empty()) return;
  out.push_back(parsedEvent(ParsedKind::reasoning, std::move(block.id), std::move(block.text)));
}

void StreamJsonParser::startTool(const std::string& id, const ToolKind& kind, std::string arguments,
                                 std::string command, std::vector<ParsedEvent>& out) {
  ParsedEvent s = parsedEvent(ParsedKind::tool_start, id);
  s.tool_kind = kind.kind;
  s.name = wireToolName(kind);
  s.server = kind.server;
  s.arguments = arguments.empty() ? "{}" : std::move(arguments);
  s.command = std::move(command);
  tool_kinds_[id] = kind.kind;
  out.push_back(std::move(s));
}

void StreamJsonParser::onAssistant(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  auto message = json::obj(line, "message");
  onAssistantMessage(message);
  const std::string message_id = json::str(message, "id");
  auto content = json::arr(message, "content");
  if (!content.isArray()) return;
  // Claude's retries-exhausted message is `<synthetic>` text with these marks.
  const bool synthetic_error =
      json::flag(line, "is_api_error_message") || !json::str(line, "error").empty();

  for (const auto& block : content.elements()) {
    const std::string type = json::str(block, "type");
    if (type == "text") {
      std::string text = json::str(block, "text");
      std::string id = open_text_ ? std::move(open_text_->id) : newBlockId(message_id);
      open_text_.reset();
      completeText(id, text, synthetic_error || isApiErrorText(text), line, out);
    } else if (type == "thinking") {
      std::string id = open_thinking_ ? std::move(open_thinking_->id) : newBlockId(message_id);
      open_thinking_.reset();
      std::string text = json::str(block, "thinking");
      if (!text.empty()) out.push_back(parsedEvent(ParsedKind::reasoning, id, std::move(text)));
    } else if (type == "tool_use") {
      ToolKind kind = classifyToolName(json::str(block, "name"));
      auto input = json::obj(block, "input");
      std::string command = kind.kind == "command" ? json::str(input, "command") : std::string();
      startTool(json::str(block, "id"), kind, json::dump(block, "input"), std::move(command), out);
    }
  }
}

bool StreamJsonParser::isApiErrorText(const std::string& text) const {
  return options_.api_error_text && text.starts_with(kApiErrorPrefix);
}

void StreamJsonParser::pushFatalError(std::string text, std::string code,
                                      std::vector<ParsedEvent>& out) {
  // One fatal error a turn: a result line after an API error text repeats it.
  if (fatal_error_sent_) return;
  fatal_error_sent_ = true;
  ParsedEvent e = parsedEvent(ParsedKind::error, {}, std::move(text));
  e.fatal = true;
  e.code = std::move(code);
  out.push_back(std::move(e));
}

void StreamJsonParser::completeText(const std::string& id, const std::string& text, bool api_error,
                                    const sdk::Json& line, std::vector<ParsedEvent>& out) {
  if (api_error) {
    // Claude's `error` ("authentication_failed") names the cause better than
    // its text ("Invalid API key · Fix external API key").
    pushFatalError(text, lineFailureCode(line, json::str(line, "error") + " " + text), out);
    return;
  }
  last_message_ = text;
  out.push_back(parsedEvent(ParsedKind::message, id, text));
}

void StreamJsonParser::closeOpenText(std::vector<ParsedEvent>& out) {
  if (!open_text_) return;
  OpenBlock block = std::move(*open_text_);
  open_text_.reset();
  completeText(block.id, block.text, isApiErrorText(block.text), sdk::Json(), out);
}

void StreamJsonParser::onUser(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  auto content = json::arr(json::obj(line, "message"), "content");
  if (!content.isArray()) return;
  for (const auto& block : content.elements()) {
    if (json::str(block, "type") != "tool_result") continue;
    ParsedEvent e = parsedEvent(ParsedKind::tool_end, json::str(block, "tool_use_id"));
    e.text = contentText(block);
    // The CLIs print a tool's output once, when it is done: one output delta
    // (streamed command output on the Agents wire), then the end.
    if (options_.tool_output && !e.text.empty())
      out.push_back(parsedEvent(ParsedKind::tool_output, e.id, e.text));
    const bool failed = json::flag(block, "is_error");
    e.status = failed ? "failed" : "completed";
    if (failed) e.error = e.text;
    // Both CLIs mark a non-zero exit of a shell tool as is_error.
    if (tool_kinds_[e.id] == "command")
      e.exit_code = failed ? exitCodeFromToolResult(e.text) : std::optional<int>(0);
    out.push_back(std::move(e));
  }
}

void StreamJsonParser::onResult(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeOpenThinking(out);
  closeOpenText(out);
  const std::optional<sdk::agents::TokenUsage> usage = resultUsage(line);
  if (usage) {
    ParsedEvent ue = parsedEvent(ParsedKind::usage);
    ue.usage = usage;
    out.push_back(std::move(ue));
  }
  const std::string subtype = json::str(line, "subtype");
  const bool failed = json::flag(line, "is_error") || (!subtype.empty() && subtype != "success");
  const std::string error_text = failed ? resultErrorText(line) : std::string();
  if (failed) pushFatalError(error_text, lineFailureCode(line, error_text), out);
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = parsedEvent(ParsedKind::result);
  r.ok = !failed;
  r.text = r.ok ? json::str(line, "result") : error_text;
  if (r.ok && r.text.empty()) r.text = last_message_;
  r.stop_reason = json::str(line, "stop_reason");
  if (r.stop_reason.empty()) r.stop_reason = subtype;
  r.usage = usage;
  out.push_back(std::move(r));
}

void StreamJsonParser::finish(int, std::vector<ParsedEvent>& out) {
  closeOpenThinking(out);
  closeOpenText(out);
  if (result_sent_) return;
  result_sent_ = true;
  // No result line: the CLI died mid-turn (or refused to start and said so
  // on stderr); the runtime classifies the exit. Killed while retrying
  // (Claude retries a 401 for minutes by default): the failure it was
  // retrying is the cause.
  ParsedEvent r =
      parsedEvent(ParsedKind::result, {},
                  options_.no_result_text.empty() ? last_message_ : options_.no_result_text);
  r.ok = false;
  if (last_retry_) {
    r.code = last_retry_->code;
    r.text = "ended while retrying: " + last_retry_->text;
  }
  out.push_back(std::move(r));
}

std::string StreamJsonParser::newBlockId(const std::string& message_id) {
  const std::string base = message_id.empty() ? "msg" : message_id;
  std::string id;
  do {
    id = base + ":" + std::to_string(blocks_per_message_[base]++);
  } while (!used_ids_.insert(id).second);
  return id;
}

}  // namespace abx::plugins::adapters
